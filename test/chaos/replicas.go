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
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// replicaMetrics scrapes the replicas' /metrics (the plain --port) and
// sums the passes they count by their error label, across restarts.
type replicaMetrics struct {
	ports []int
	mu    sync.Mutex
	last  []map[string]float64
	total map[string]float64
	// leaders counts the scrapes that found both replicas leading.
	scrapes, twoLeaders int
}

const reconciliationsMetric = "horizontal_pod_autoscaler_controller_reconciliations_total"

var errorLabel = regexp.MustCompile(`error="([^"]*)"`)

func newReplicaMetrics(ports []int) *replicaMetrics {
	return &replicaMetrics{ports: ports, last: make([]map[string]float64, len(ports)), total: map[string]float64{}}
}

func (m *replicaMetrics) scrape(ctx context.Context) {
	client := &http.Client{Timeout: 5 * time.Second}
	leaders := 0
	for i, port := range m.ports {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
		if err != nil {
			continue
		}
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		now := map[string]float64{}
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "leader_election_master_status{") && strings.HasSuffix(line, " 1") {
				leaders++
			}
			if !strings.HasPrefix(line, reconciliationsMetric+"{") {
				continue
			}
			fields := strings.Fields(line)
			v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			if err != nil {
				continue
			}
			label := "none"
			if mm := errorLabel.FindStringSubmatch(line); mm != nil {
				label = mm[1]
			}
			now[label] += v
		}
		m.mu.Lock()
		for label, v := range now {
			prev := m.last[i][label]
			if v < prev { // a new process
				prev = 0
			}
			m.total[label] += v - prev
		}
		m.last[i] = now
		m.mu.Unlock()
	}
	m.mu.Lock()
	m.scrapes++
	if leaders > 1 {
		m.twoLeaders++
	}
	m.mu.Unlock()
}

func (m *replicaMetrics) run(ctx context.Context, interval time.Duration) {
	for {
		m.scrape(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// exit is one end of a replica's process, from the Supervisor's lines in
// its log ("# exit of start N at T: how").
type exit struct {
	replica string
	at      time.Time
	how     string
	// before are the last log lines of the process.
	before []string
}

var exitLine = regexp.MustCompile(`^# exit of start \d+ at (\S+): (.*)$`)

// panicLine matches what a recovered or fatal panic leaves in a log.
var panicLine = regexp.MustCompile(`(?i)observed a panic|^panic: |recovered from panic`)

// readReplicaLog lists the exits and the panic lines of one replica's log.
func readReplicaLog(name, path string) ([]exit, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	var exits []exit
	var panics []string
	var tail []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if m := exitLine.FindStringSubmatch(line); m != nil {
			at, _ := time.Parse(time.RFC3339Nano, m[1])
			exits = append(exits, exit{replica: name, at: at, how: m[2], before: append([]string(nil), tail...)})
			tail = tail[:0]
			continue
		}
		if panicLine.MatchString(line) {
			panics = append(panics, name+": "+line)
		}
		tail = append(tail, line)
		if len(tail) > 5 {
			tail = tail[1:]
		}
	}
	return exits, panics, s.Err()
}
