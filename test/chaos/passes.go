/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package chaos

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// passLog is the adapter's record of the fetches of each HPA's series
// (its /debug/fetch-times), collected every few seconds since the adapter
// forgets them when it is killed. Every HPA has a series of its own and the
// controllers' sharing window is shorter than the period, so a pass over an
// HPA is one fetch of its series.
type passLog struct {
	url    string
	client *http.Client

	mu    sync.Mutex
	times map[string][]time.Time
	last  time.Time
}

func newPassLog(adapterURL string, caBundle []byte) *passLog {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caBundle)
	return &passLog{
		url: adapterURL,
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: pool, MinVersion: tls.VersionTLS12,
			ServerName: localcluster.APIServiceServerName("external.metrics.k8s.io", "v1beta1"),
		}}},
		times: map[string][]time.Time{},
	}
}

var hpaSelector = regexp.MustCompile(seriesLabel + `=(c-[0-9]+)`)

// poll collects the fetches since the last poll; an adapter that does not
// answer (killed) is polled again later.
func (p *passLog) poll(ctx context.Context) error {
	p.mu.Lock()
	since := p.last.Add(-5 * time.Second)
	p.mu.Unlock()
	q := ""
	if !since.IsZero() {
		q = "?since=" + url.QueryEscape(since.UTC().Format(time.RFC3339Nano))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/debug/fetch-times"+q, nil)
	if err != nil {
		return err
	}
	now := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/fetch-times: %s: %s", resp.Status, body)
	}
	var doc struct {
		Series []struct {
			API       string  `json:"api"`
			Selector  string  `json:"selector"`
			UnixNanos []int64 `json:"unixNanos"`
		} `json:"series"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("decoding /debug/fetch-times: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range doc.Series {
		m := hpaSelector.FindStringSubmatch(s.Selector)
		if s.API != "external" || m == nil {
			continue
		}
		name := m[1]
		known := p.times[name]
		var lastKnown time.Time
		if len(known) > 0 {
			lastKnown = known[len(known)-1]
		}
		for _, n := range s.UnixNanos {
			if t := time.Unix(0, n); t.After(lastKnown) {
				known = append(known, t)
			}
		}
		sort.Slice(known, func(i, j int) bool { return known[i].Before(known[j]) })
		p.times[name] = known
	}
	p.last = now
	return nil
}

// run polls every interval until ctx ends.
func (p *passLog) run(ctx context.Context, interval time.Duration) {
	for {
		_ = p.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// gap is the longest wait for a pass of one HPA not excused by a
// disruption.
type gap struct {
	from, to time.Time
	// excusedUntil is the recovery the wait is counted from, if any.
	excusedUntil time.Time
}

func (g gap) length() time.Duration {
	from := g.from
	if g.excusedUntil.After(from) {
		from = g.excusedUntil
	}
	return g.to.Sub(from)
}

// longestGap is the longest time between begin and end that name went
// without a pass, counting a wait that spans a disruption from its
// recovery.
func (p *passLog) longestGap(name string, begin, end time.Time, ws []window) (gap, int) {
	p.mu.Lock()
	var points []time.Time
	for _, t := range p.times[name] {
		if t.After(begin) && t.Before(end) {
			points = append(points, t)
		}
	}
	p.mu.Unlock()
	passes := len(points)
	points = append(append([]time.Time{begin}, points...), end)
	var worst gap
	for i := 1; i < len(points); i++ {
		g := gap{from: points[i-1], to: points[i]}
		for _, w := range ws {
			if w.end.After(w.start) && w.start.Before(g.to) && w.end.After(g.from) && w.end.After(g.excusedUntil) {
				g.excusedUntil = w.end
			}
		}
		if g.length() > worst.length() {
			worst = g
		}
	}
	return worst, passes
}
