package otel

import (
	"strings"
	"testing"
	"time"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	for _, tt := range []struct {
		name             string
		env              []string
		logsURL, metURL  string
		logsProto        string
		headers          string
		timeout          time.Duration
		logsOff, wantErr bool
	}{
		{name: "defaults", logsURL: "http://localhost:4318/v1/logs", metURL: "http://localhost:4318/v1/metrics", logsProto: "http/protobuf", timeout: 10 * time.Second},
		{name: "grpc default port", env: []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, logsURL: "http://localhost:4317", metURL: "http://localhost:4317", logsProto: "grpc", timeout: 10 * time.Second},
		{name: "base endpoint, trailing slash", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example:4318/"},
			logsURL: "https://c.example:4318/v1/logs", metURL: "https://c.example:4318/v1/metrics", logsProto: "http/protobuf", timeout: 10 * time.Second},
		{name: "signal endpoint as given, signal protocol wins", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1",
			"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://b:2/custom", "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/protobuf"},
			logsURL: "http://b:2/custom", metURL: "http://a:1/v1/metrics", logsProto: "http/protobuf", timeout: 10 * time.Second},
		{name: "headers and timeout", env: []string{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20x,x-team=a", "OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-team=b",
			"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"}, logsURL: "http://localhost:4318/v1/logs", metURL: "http://localhost:4318/v1/metrics", logsProto: "http/protobuf",
			headers: "authorization=Bearer x,x-team=b", timeout: 2500 * time.Millisecond},
		{name: "logs off", env: []string{"OTEL_LOGS_EXPORTER", "none"}, logsURL: "http://localhost:4318/v1/logs", metURL: "http://localhost:4318/v1/metrics", logsProto: "http/protobuf", timeout: 10 * time.Second, logsOff: true},
		{name: "bad protocol", env: []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "udp"}, wantErr: true},
		{name: "bad timeout", env: []string{"OTEL_EXPORTER_OTLP_TIMEOUT", "soon"}, wantErr: true},
		{name: "bad endpoint", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}, wantErr: true},
		{name: "bad header", env: []string{"OTEL_EXPORTER_OTLP_HEADERS", "token"}, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ConfigFromEnv(envOf(tt.env...))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error: %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Logs.URL != tt.logsURL || c.Metrics.URL != tt.metURL || c.Logs.Protocol != tt.logsProto || c.Logs.Timeout != tt.timeout || c.Logs.Off != tt.logsOff {
				t.Errorf("got logs %+v metrics %+v", c.Logs, c.Metrics)
			}
			if tt.headers != "" {
				var hs []string
				for _, k := range []string{"authorization", "x-team"} {
					hs = append(hs, k+"="+c.Logs.Headers[k])
				}
				if strings.Join(hs, ",") != tt.headers {
					t.Errorf("headers %v", c.Logs.Headers)
				}
			}
		})
	}
}

func TestHeaderErrorsHoldNoValue(t *testing.T) {
	_, err := ConfigFromEnv(envOf("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%zzsecret"))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %v", err)
	}
	if got := Redact("https://user:pw@host:1/v1/logs?token=abc"); got != "https://host:1/v1/logs" {
		t.Errorf("Redact: %s", got)
	}
}

func FuzzSettings(f *testing.F) {
	f.Add("a=b,c=d%20e", "x=y")
	f.Add("=,,=", "k=%zz")
	f.Fuzz(func(t *testing.T, headers, res string) {
		// Outside input: an error or a value, never a panic; a header
		// error never repeats a value (which may be a token).
		h := map[string]string{}
		if err := parseHeaders(headers, h); err != nil {
			for _, kv := range strings.Split(headers, ",") {
				if _, v, ok := strings.Cut(kv, "="); ok && len(v) > 3 && strings.Contains(err.Error(), v) {
					t.Errorf("header error %q repeats the value %q", err, v)
				}
			}
		}
		_, _ = resourceAttrs(res)
	})
}
