package otel

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Sender delivers export requests to a collector. A nil error means the
// collector acknowledged the request; rejected is what it said it
// dropped for good (OTLP partial success).
type Sender interface {
	Logs(ctx context.Context, l plog.Logs) (rejected int64, err error)
	Metrics(ctx context.Context, m pmetric.Metrics) (rejected int64, err error)
	Close() error
}

// Retry is how often a request a collector could not take right now
// (HTTP 429, 502, 503, 504; gRPC Unavailable and the like; a connection
// that failed) is tried again within one run, and how long to wait before
// each try.
var Retry = []time.Duration{time.Second, 2 * time.Second}

// NewSender returns the Sender of a target's protocol.
func NewSender(t Target) (Sender, error) {
	if t.Protocol == "grpc" {
		return newGRPC(t)
	}
	return &httpSender{t: t, c: &http.Client{Timeout: t.Timeout}}, nil
}

type httpSender struct {
	t Target
	c *http.Client
	// readers, in a sendProto, counts its request bodies not closed.
	readers *atomic.Int64
}

func (s *httpSender) Close() error { s.c.CloseIdleConnections(); return nil }

// protoSender is a Sender that takes requests marshalled (protobuf), as
// pieces make them (pieces.go), when sendsProto. It gives the body back
// (free) when nothing reads it any more.
type protoSender interface {
	sendsProto() bool
	sendProto(ctx context.Context, s Signal, body []byte) (rejected int64, free []byte, err error)
}

func (s *httpSender) sendsProto() bool { return !s.json() }

func (s *httpSender) sendProto(ctx context.Context, sig Signal, body []byte) (int64, []byte, error) {
	var readers atomic.Int64
	s.readers = &readers
	defer func() { s.readers = nil }()
	raw := body
	body, err := s.compress(body)
	if err != nil {
		return 0, nil, err
	}
	var rejected int64
	if sig == Metrics {
		rejected, err = s.postMetrics(ctx, body)
	} else {
		rejected, err = s.postLogs(ctx, body)
	}
	// The transport closes a request's body once it has written it (or
	// given up), which may be after the answer came: the memory is given
	// back only when every try's is closed.
	if readers.Load() != 0 {
		raw = nil
	}
	return rejected, raw[:0], err
}

// bodyReader is a request body that counts itself closed.
type bodyReader struct {
	*bytes.Reader
	open *atomic.Int64
	once sync.Once
}

func (b *bodyReader) Close() error {
	b.once.Do(func() { b.open.Add(-1) })
	return nil
}

func (s *httpSender) Logs(ctx context.Context, l plog.Logs) (int64, error) {
	req := plogotlp.NewExportRequestFromLogs(l)
	body, err := s.marshal(req.MarshalProto, req.MarshalJSON)
	if err != nil {
		return 0, err
	}
	return s.postLogs(ctx, body)
}

func (s *httpSender) postLogs(ctx context.Context, body []byte) (int64, error) {
	resp := plogotlp.NewExportResponse()
	err := s.post(ctx, body, func(b []byte, json bool) error {
		if json {
			return resp.UnmarshalJSON(b)
		}
		return resp.UnmarshalProto(b)
	})
	return resp.PartialSuccess().RejectedLogRecords(), err
}

func (s *httpSender) Metrics(ctx context.Context, m pmetric.Metrics) (int64, error) {
	req := pmetricotlp.NewExportRequestFromMetrics(m)
	body, err := s.marshal(req.MarshalProto, req.MarshalJSON)
	if err != nil {
		return 0, err
	}
	return s.postMetrics(ctx, body)
}

func (s *httpSender) postMetrics(ctx context.Context, body []byte) (int64, error) {
	resp := pmetricotlp.NewExportResponse()
	err := s.post(ctx, body, func(b []byte, json bool) error {
		if json {
			return resp.UnmarshalJSON(b)
		}
		return resp.UnmarshalProto(b)
	})
	return resp.PartialSuccess().RejectedDataPoints(), err
}

func (s *httpSender) json() bool { return s.t.Protocol == "http/json" }

func (s *httpSender) marshal(proto, json func() ([]byte, error)) ([]byte, error) {
	var b []byte
	var err error
	if s.json() {
		b, err = json()
	} else {
		b, err = proto()
	}
	if err != nil {
		return nil, err
	}
	return s.compress(b)
}

// compress gzips b when the target asks for it.
func (s *httpSender) compress(b []byte) ([]byte, error) {
	if s.t.Compression != "gzip" {
		return b, nil
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, _ = w.Write(b)
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// StatusError is a collector's refusal.
type StatusError struct {
	Status    string
	Retryable bool
	Detail    string
}

func (e *StatusError) Error() string {
	if e.Detail != "" {
		return "the collector answered " + e.Status + ": " + e.Detail
	}
	return "the collector answered " + e.Status
}

func (s *httpSender) post(ctx context.Context, body []byte, decode func([]byte, bool) error) error {
	return retry(ctx, func() (bool, error) {
		var rd io.Reader = bytes.NewReader(body)
		if s.readers != nil {
			s.readers.Add(1)
			rd = &bodyReader{Reader: bytes.NewReader(body), open: s.readers}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.t.URL, rd)
		if err != nil {
			return false, err
		}
		req.ContentLength = int64(len(body))
		ct := "application/x-protobuf"
		if s.json() {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
		req.Header.Set("User-Agent", "cc-otel (ccpipe)")
		if s.t.Compression == "gzip" {
			req.Header.Set("Content-Encoding", "gzip")
		}
		for k, v := range s.t.Headers {
			req.Header.Set(k, v)
		}
		resp, err := s.c.Do(req)
		if err != nil {
			// The URL may hold user info: the error names only the endpoint.
			var ue *url.Error
			if errors.As(err, &ue) {
				err = fmt.Errorf("%s %s: %w", ue.Op, Redact(s.t.URL), ue.Err)
			}
			return true, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode/100 != 2 {
			c := resp.StatusCode
			se := &StatusError{Status: resp.Status, Retryable: c == 429 || c == 502 || c == 503 || c == 504}
			if len(b) > 0 && len(b) < 300 && s.json() {
				se.Detail = string(bytes.TrimSpace(b))
			}
			if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && ra > 0 && ra <= 30 && se.Retryable {
				time.Sleep(time.Duration(ra) * time.Second)
			}
			return se.Retryable, se
		}
		if len(b) > 0 {
			_ = decode(b, resp.Header.Get("Content-Type") == "application/json")
		}
		return false, nil
	})
}

// retry runs try, again after each of Retry's waits while it fails and
// says it may work later.
func retry(ctx context.Context, try func() (again bool, err error)) error {
	for i := 0; ; i++ {
		again, err := try()
		if err == nil || !again || i >= len(Retry) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(Retry[i]):
		}
	}
}

type grpcSender struct {
	t    Target
	conn *grpc.ClientConn
	logs plogotlp.GRPCClient
	mets pmetricotlp.GRPCClient
}

func newGRPC(t Target) (*grpcSender, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	creds := credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	if t.Insecure {
		creds = insecure.NewCredentials()
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithUserAgent("cc-otel (ccpipe)")}
	if t.Compression == "gzip" {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.UseCompressor("gzip")))
	}
	conn, err := grpc.NewClient(u.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("grpc %s: %w", Redact(t.URL), err)
	}
	return &grpcSender{t: t, conn: conn, logs: plogotlp.NewGRPCClient(conn), mets: pmetricotlp.NewGRPCClient(conn)}, nil
}

func (s *grpcSender) Close() error { return s.conn.Close() }

func (s *grpcSender) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if len(s.t.Headers) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(s.t.Headers))
	}
	return context.WithTimeout(ctx, s.t.Timeout)
}

func (s *grpcSender) Logs(ctx context.Context, l plog.Logs) (int64, error) {
	var rejected int64
	err := retry(ctx, func() (bool, error) {
		c, cancel := s.ctx(ctx)
		defer cancel()
		resp, err := s.logs.Export(c, plogotlp.NewExportRequestFromLogs(l))
		if err != nil {
			return grpcErr(err)
		}
		rejected = resp.PartialSuccess().RejectedLogRecords()
		return false, nil
	})
	return rejected, err
}

func (s *grpcSender) Metrics(ctx context.Context, m pmetric.Metrics) (int64, error) {
	var rejected int64
	err := retry(ctx, func() (bool, error) {
		c, cancel := s.ctx(ctx)
		defer cancel()
		resp, err := s.mets.Export(c, pmetricotlp.NewExportRequestFromMetrics(m))
		if err != nil {
			return grpcErr(err)
		}
		rejected = resp.PartialSuccess().RejectedDataPoints()
		return false, nil
	})
	return rejected, err
}

// The OTLP services' Export methods, called with request bodies marshalled
// already (pieces.go), as the collector's gRPC clients call them.
const (
	grpcLogsExport    = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"
	grpcMetricsExport = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
)

// rawCodec passes a protobuf body through as it is (named "proto": the
// collector's server decodes it as its own request), both ways.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }

func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

func (s *grpcSender) sendsProto() bool { return true }

// sendProto sends a request body marshalled already; the body is given
// back once the collector answered (gRPC wrote it whole), not after a
// failure.
func (s *grpcSender) sendProto(ctx context.Context, sig Signal, body []byte) (int64, []byte, error) {
	method := grpcLogsExport
	if sig == Metrics {
		method = grpcMetricsExport
	}
	var answer []byte
	err := retry(ctx, func() (bool, error) {
		c, cancel := s.ctx(ctx)
		defer cancel()
		if err := s.conn.Invoke(c, method, &body, &answer, grpc.ForceCodec(rawCodec{})); err != nil {
			return grpcErr(err)
		}
		return false, nil
	})
	if err != nil {
		return 0, nil, err
	}
	if sig == Metrics {
		resp := pmetricotlp.NewExportResponse()
		if err := resp.UnmarshalProto(answer); err != nil {
			return 0, body[:0], err
		}
		return resp.PartialSuccess().RejectedDataPoints(), body[:0], nil
	}
	resp := plogotlp.NewExportResponse()
	if err := resp.UnmarshalProto(answer); err != nil {
		return 0, body[:0], err
	}
	return resp.PartialSuccess().RejectedLogRecords(), body[:0], nil
}

// grpcErr is a gRPC failure as a StatusError; the codes OTLP calls
// retryable may work on a later try.
func grpcErr(err error) (bool, error) {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss, codes.ResourceExhausted:
		return true, &StatusError{Status: "gRPC " + st.Code().String(), Retryable: true, Detail: st.Message()}
	}
	return false, &StatusError{Status: "gRPC " + st.Code().String(), Detail: st.Message()}
}
