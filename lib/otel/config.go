package otel

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The OTLP exporter settings, read from the standard OTEL_* environment
// the way Claude Code 2.1.328 (its OpenTelemetry JS SDK) reads them, so
// that one environment serves both. See docs/cc-otel.md.

// Protocols are the OTLP transports cc-otel speaks.
var Protocols = []string{"http/protobuf", "http/json", "grpc"}

// Signal is logs or metrics.
type Signal string

// The two signals a transcript can rebuild.
const (
	Logs    Signal = "logs"
	Metrics Signal = "metrics"
)

// Target is where one signal goes.
type Target struct {
	Signal   Signal
	Protocol string // one of Protocols
	// URL is the full endpoint: http(s)://host:port/v1/<signal> for the
	// HTTP protocols, http(s)://host:port for grpc.
	URL         string
	Headers     map[string]string // never printed: they may hold tokens
	Timeout     time.Duration
	Compression string // "" or gzip
	Insecure    bool   // grpc: plaintext (http:// or OTEL_EXPORTER_OTLP_INSECURE)
	// Off says the environment turned this signal off
	// (OTEL_<SIGNAL>_EXPORTER without otlp).
	Off bool
}

// Config is the export settings of one run.
type Config struct {
	Logs, Metrics Target
	// Resource are OTEL_RESOURCE_ATTRIBUTES, decoded.
	Resource [][2]string
	// LogUserPrompts is OTEL_LOG_USER_PROMPTS=1: prompts are sent, masked.
	LogUserPrompts bool
}

// ConfigFromEnv reads the settings from getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var err error
	if c.Logs, err = target(getenv, Logs); err != nil {
		return c, err
	}
	if c.Metrics, err = target(getenv, Metrics); err != nil {
		return c, err
	}
	if c.Resource, err = resourceAttrs(getenv("OTEL_RESOURCE_ATTRIBUTES")); err != nil {
		return c, err
	}
	c.LogUserPrompts = truthy(getenv("OTEL_LOG_USER_PROMPTS"))
	return c, nil
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// first is the first non-empty value of keys.
func first(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
	}
	return ""
}

func target(getenv func(string) string, s Signal) (Target, error) {
	up := strings.ToUpper(string(s))
	t := Target{Signal: s}
	if v := getenv("OTEL_" + up + "_EXPORTER"); v != "" && !hasItem(v, "otlp") {
		t.Off = true
	}
	t.Protocol = first(getenv, "OTEL_EXPORTER_OTLP_"+up+"_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
	if t.Protocol == "" {
		t.Protocol = "http/protobuf"
	}
	if !hasItem(strings.Join(Protocols, ","), t.Protocol) {
		return t, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: want one of %s", t.Protocol, strings.Join(Protocols, ", "))
	}
	grpc := t.Protocol == "grpc"
	if u := first(getenv, "OTEL_EXPORTER_OTLP_"+up+"_ENDPOINT"); u != "" {
		t.URL = u // a signal's endpoint is used as it is
	} else {
		base := first(getenv, "OTEL_EXPORTER_OTLP_ENDPOINT")
		switch {
		case base == "" && grpc:
			base = "http://localhost:4317"
		case base == "":
			base = "http://localhost:4318"
		}
		t.URL = base
		if !grpc {
			t.URL = strings.TrimRight(base, "/") + "/v1/" + string(s)
		}
	}
	pu, err := url.Parse(t.URL)
	if err != nil || pu.Host == "" || (pu.Scheme != "http" && pu.Scheme != "https") {
		return t, fmt.Errorf("the %s endpoint is not an http(s) URL: %s", s, Redact(t.URL))
	}
	t.Insecure = pu.Scheme == "http" || truthy(first(getenv, "OTEL_EXPORTER_OTLP_"+up+"_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"))
	t.Headers = map[string]string{}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + up + "_HEADERS"} {
		if err := parseHeaders(getenv(k), t.Headers); err != nil {
			return t, fmt.Errorf("%s: %w", k, err)
		}
	}
	t.Timeout = 10 * time.Second
	if v := first(getenv, "OTEL_EXPORTER_OTLP_"+up+"_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"); v != "" {
		ms, err := strconv.ParseUint(v, 10, 32)
		if err != nil || ms == 0 {
			return t, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds above 0", v)
		}
		t.Timeout = time.Duration(ms) * time.Millisecond
	}
	t.Compression = first(getenv, "OTEL_EXPORTER_OTLP_"+up+"_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION")
	if t.Compression == "none" {
		t.Compression = ""
	}
	if t.Compression != "" && t.Compression != "gzip" {
		return t, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", t.Compression)
	}
	return t, nil
}

func hasItem(list, item string) bool {
	for _, v := range strings.Split(list, ",") {
		if strings.TrimSpace(v) == item {
			return true
		}
	}
	return false
}

// parseHeaders reads the W3C baggage-like list key=value,key=value
// (values percent-encoded) into h. The error never holds a value.
func parseHeaders(v string, h map[string]string) error {
	for i, kv := range strings.Split(v, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("item %d is not key=value", i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("header %s: the value is not percent-encoded", k)
		}
		h[strings.ToLower(k)] = dv
	}
	return nil
}

func resourceAttrs(v string) ([][2]string, error) {
	var out [][2]string
	for i, kv := range strings.Split(v, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: item %d is not key=value", i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %s: the value is not percent-encoded", k)
		}
		out = append(out, [2]string{k, dv})
	}
	return out, nil
}

// Redact is an endpoint as it may be printed: scheme, host and path,
// without user info or query (which can hold a token).
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an endpoint that is not a URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}
