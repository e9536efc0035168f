package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// PublicAPI is the upstream when the parent has no ANTHROPIC_BASE_URL.
const PublicAPI = "https://api.anthropic.com"

// PublicOpenAI is the upstream of /v1/chat/completions when the parent has
// no OPENAI_BASE_URL (like the SDK's default, it ends in /v1).
const PublicOpenAI = "https://api.openai.com/v1"

// Server is the loopback proxy a child process talks to.
type Server struct {
	ln  net.Listener
	srv *http.Server
}

// Listen serves h on 127.0.0.1 at a free port.
func Listen(h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &Server{ln: ln, srv: srv}, nil
}

// URL is the base URL to give the child as ANTHROPIC_BASE_URL.
func (p *Server) URL() string { return "http://" + p.ln.Addr().String() }

// Close waits briefly for requests in flight, then drops the rest.
func (p *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		return p.srv.Close()
	}
	return nil
}

// hopHeaders are not forwarded (RFC 9110 §7.6.1).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends the request upstream with its headers (credentials
// included: they are passed on, never stored) and body, of length n (-1:
// unknown, sent chunked). For recorded calls the transport negotiates
// compression itself, so the proxy reads plain bytes.
func (s *Session) forward(a *api, r *http.Request, body io.Reader, n int64, recorded bool) (*http.Response, error) {
	base := s.opt.Upstream
	if a == openaiAPI {
		base = s.opt.OpenAI
	}
	if base == nil {
		return nil, errors.New("no upstream")
	}
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/") + a.upstreamPath(r.URL.Path)
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if recorded {
		out.Header.Del("Accept-Encoding")
	}
	out.ContentLength = n
	if n == 0 {
		out.Body = http.NoBody
	}
	return s.client.Do(out)
}

// requestBody is a request's body for forward: what the proxy read of it,
// then (when it stopped reading at MaxBody) the rest, as it comes.
func requestBody(r *http.Request, read []byte, whole bool) (io.Reader, int64) {
	if whole {
		return bytes.NewReader(read), int64(len(read))
	}
	return io.MultiReader(bytes.NewReader(read), r.Body), r.ContentLength
}

// copyResponse copies status, headers and body to the client as they
// arrive, flushing each read (SSE), and tees the body into tee when
// given. A tee's write error (a body over what the proxy keeps) stops the
// tee, not the copy: the client gets the whole body, and the tee's error
// is returned as teeErr. err is a cut upstream answer or the client gone.
func copyResponse(w http.ResponseWriter, resp *http.Response, tee io.Writer) (teeErr, err error) {
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	if resp.Uncompressed {
		h.Del("Content-Length")
		h.Del("Content-Encoding")
	}
	w.WriteHeader(resp.StatusCode)
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32*1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return teeErr, werr
			}
			if f != nil {
				f.Flush()
			}
			if tee != nil {
				if _, teeErr = tee.Write(buf[:n]); teeErr != nil {
					tee = nil
				}
			}
		}
		if err == io.EOF {
			return teeErr, nil
		}
		if err != nil {
			return teeErr, &cutError{err}
		}
	}
}

// cutError is an upstream answer that broke off (a reset, a truncated
// chunked body) after its status went to the client.
type cutError struct{ err error }

func (e *cutError) Error() string { return "the upstream answer was cut: " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// passCut passes a cut upstream answer on as a cut: the handler aborts
// and the client's connection is reset mid-body, as it would be without
// the proxy. Ending the response normally would hand the client a clean
// 200 with half a body. Call it with no lock held.
func passCut(err error) {
	var c *cutError
	if errors.As(err, &c) {
		panic(http.ErrAbortHandler)
	}
}
