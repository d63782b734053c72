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

package framework

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// leaderGauge is the metric each replica serves with value 1 while it
// holds the Lease, as kube-controller-manager does.
const leaderGauge = "leader_election_master_status"

// scrapeTimeout is short: a replica frozen with SIGSTOP must read as "not
// leading" rather than stall the caller.
const scrapeTimeout = time.Second

// Controllers finds and acts on the controller replicas of the local
// environment, from any ginkgo process.
type Controllers struct {
	cfg     Config
	control *ControlClient
	http    *http.Client
}

func newControllers(cfg Config, control *ControlClient) *Controllers {
	return &Controllers{cfg: cfg, control: control, http: &http.Client{Timeout: scrapeTimeout}}
}

// Control is the raw client of process 1's control endpoint.
func (c *Controllers) Control() *ControlClient { return c.control }

// Count is the number of replicas.
func (c *Controllers) Count() int { return len(c.cfg.Replicas) }

// LogPath is the log of replica i (every start appends to it).
func (c *Controllers) LogPath(i int) string { return c.cfg.Replicas[i].LogPath }

func (c *Controllers) get(ctx context.Context, i int, path string) (int, string, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d%s", c.cfg.Replicas[i].MetricsPort, path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var b strings.Builder
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		b.WriteString(scanner.Text())
		b.WriteByte('\n')
	}
	return resp.StatusCode, b.String(), scanner.Err()
}

// IsLeader scrapes replica i's /metrics; a replica that does not answer
// is not leading.
func (c *Controllers) IsLeader(ctx context.Context, i int) bool {
	code, body, err := c.get(ctx, i, "/metrics")
	if err != nil || code != http.StatusOK {
		return false
	}
	return leaderGaugeSet(body, c.cfg.LeaseName)
}

// leaderGaugeSet reads the gauge of lease from a Prometheus text page.
func leaderGaugeSet(page, lease string) bool {
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, leaderGauge+"{") || !strings.Contains(line, `name="`+lease+`"`) {
			continue
		}
		fields := strings.Fields(line)
		return len(fields) >= 2 && fields[len(fields)-1] == "1"
	}
	return false
}

// Ready reports whether replica i answers /readyz with 200: a standby
// always does, a leader once its caches have synced.
func (c *Controllers) Ready(ctx context.Context, i int) bool {
	code, _, err := c.get(ctx, i, "/readyz")
	return err == nil && code == http.StatusOK
}

// Leaders lists the replicas that report holding the Lease.
func (c *Controllers) Leaders(ctx context.Context) []int {
	var out []int
	for i := range c.cfg.Replicas {
		if c.IsLeader(ctx, i) {
			out = append(out, i)
		}
	}
	return out
}

// leaderPoll is how often the waits below look.
const leaderPoll = 200 * time.Millisecond

// WaitForLeader waits until exactly one replica other than not (-1: any)
// leads, and returns it.
func (c *Controllers) WaitForLeader(ctx context.Context, not int) (int, error) {
	leader := -1
	err := wait.PollUntilContextCancel(ctx, leaderPoll, true, func(ctx context.Context) (bool, error) {
		leaders := c.Leaders(ctx)
		if len(leaders) == 1 && leaders[0] != not {
			leader = leaders[0]
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return -1, fmt.Errorf("waiting for a leader other than replica %d: %w", not, err)
	}
	return leader, nil
}

// WaitReady waits until replica i answers /readyz.
func (c *Controllers) WaitReady(ctx context.Context, i int) error {
	err := wait.PollUntilContextCancel(ctx, leaderPoll, true, func(ctx context.Context) (bool, error) {
		return c.Ready(ctx, i), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for replica %d to be ready: %w", i, err)
	}
	return nil
}

// WaitAllRunning waits until every replica runs a process that serves
// /healthz (the Supervisor restarted any that was killed).
func (c *Controllers) WaitAllRunning(ctx context.Context) error {
	for i := range c.cfg.Replicas {
		if _, err := c.control.WaitRunning(ctx, i, 0); err != nil {
			return err
		}
		err := wait.PollUntilContextCancel(ctx, leaderPoll, true, func(ctx context.Context) (bool, error) {
			code, _, err := c.get(ctx, i, "/healthz")
			return err == nil && code == http.StatusOK, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for replica %d to serve /healthz: %w", i, err)
		}
	}
	return nil
}

// KillLeader sends signal (KILL, TERM, STOP) to the current leader and
// returns its index and the pid that got the signal.
func (c *Controllers) KillLeader(ctx context.Context, signal string) (int, int, error) {
	leader, err := c.WaitForLeader(ctx, -1)
	if err != nil {
		return -1, 0, err
	}
	pid, err := c.control.Signal(ctx, leader, signal)
	return leader, pid, err
}

// RestartLeader ends the leader gracefully (SIGTERM releases the Lease)
// and waits for a new leader process, which starts its informers from
// scratch. It returns the new leader; it is not waited for to be ready.
func (c *Controllers) RestartLeader(ctx context.Context) (int, error) {
	old, pid, err := c.KillLeader(ctx, "TERM")
	if err != nil {
		return -1, err
	}
	// The other replica usually takes over; the restarted one may win
	// instead. Either way the leader is a process that never led before.
	if _, err := c.control.WaitRunning(ctx, old, pid); err != nil {
		return -1, err
	}
	return c.WaitForLeader(ctx, -1)
}

// RestartAll ends every replica gracefully, waits for the Supervisor to
// start new ones, and returns the new leader once it is ready.
func (c *Controllers) RestartAll(ctx context.Context) (int, error) {
	pids := make([]int, len(c.cfg.Replicas))
	for i := range c.cfg.Replicas {
		pid, err := c.control.Signal(ctx, i, "TERM")
		if err != nil {
			return -1, err
		}
		pids[i] = pid
	}
	for i, pid := range pids {
		if _, err := c.control.WaitRunning(ctx, i, pid); err != nil {
			return -1, err
		}
	}
	leader, err := c.WaitForLeader(ctx, -1)
	if err != nil {
		return -1, err
	}
	return leader, c.WaitReady(ctx, leader)
}
