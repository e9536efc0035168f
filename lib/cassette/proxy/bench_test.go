package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// BenchmarkProxyLatency times one streaming Messages API request against
// the fake API directly and through a recording proxy, and reports the
// median time to the first body byte and to the end of the stream
// (bench/run turns the two into the proxy's overhead).
func BenchmarkProxyLatency(b *testing.B) {
	api, err := fakeapi.Start(&fakeapi.Script{Fallback: "A short answer of a few words, streamed."}, "")
	if err != nil {
		b.Fatal(err)
	}
	defer api.Close()
	up, _ := url.Parse(api.URL())
	s, err := NewSession(Options{Mode: Record, Upstream: up})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := Listen(s)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	body := []byte(`{"model":"m","max_tokens":100,"stream":true,"system":"You are a test.","tools":[{"name":"Bash","description":"run","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hello"}]}`)
	for _, c := range []struct{ name, base string }{{"direct", api.URL()}, {"proxy", srv.URL()}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			ttfb := make([]time.Duration, 0, b.N)
			total := make([]time.Duration, 0, b.N)
			buf := make([]byte, 1)
			for b.Loop() {
				t0 := time.Now()
				resp, err := client.Post(c.base+"/v1/messages?beta=true", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(resp.Body, buf); err != nil {
					b.Fatal(err)
				}
				ttfb = append(ttfb, time.Since(t0))
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				total = append(total, time.Since(t0))
			}
			b.ReportMetric(median(ttfb), "ttfb-p50-ms")
			b.ReportMetric(median(total), "p50-ms")
			b.ReportMetric(float64(total[len(total)*99/100])/float64(time.Millisecond), "p99-ms")
		})
	}
}

func median(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return float64(d[len(d)/2]) / float64(time.Millisecond)
}
