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
	"os"
	"path/filepath"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func TestExcusedDeadline(t *testing.T) {
	apart := []window{{start: at(100), end: at(130)}, {start: at(200), end: at(220)}}
	near := []window{{start: at(100), end: at(130)}, {start: at(150), end: at(170)}}
	for _, tc := range []struct {
		name     string
		ws       []window
		deadline time.Time
		want     time.Time
	}{
		{"a deadline before any disruption stands", apart, at(50), at(50)},
		{"a deadline within a disruption moves to its recovery plus the grace", apart, at(110), at(160)},
		{"a deadline within the grace after a recovery moves to its end", apart, at(140), at(160)},
		{"a moved deadline that lands in the next disruption moves again", near, at(110), at(200)},
		{"a deadline after every grace stands", apart, at(300), at(300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excusedDeadline(tc.deadline, tc.ws, 30*time.Second); !got.Equal(tc.want) {
				t.Errorf("got %v, want %v", got.Sub(t0), tc.want.Sub(t0))
			}
		})
	}
}

func TestLongestGap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		passes []int
		ws     []window
		want   time.Duration
	}{
		{"passes every period", []int{15, 30, 45, 60, 75, 90}, nil, 15 * time.Second},
		{"a missed pass is two periods", []int{15, 45, 60, 75, 90}, nil, 30 * time.Second},
		{"a wait across a disruption counts from its recovery", []int{5, 80, 90, 95}, []window{{start: at(20), end: at(70)}}, 10 * time.Second},
		{"no pass after a recovery counts until the end", []int{15, 30}, []window{{start: at(35), end: at(40)}}, 60 * time.Second},
		{"an injection without a disruption excuses nothing", []int{15, 80, 90}, []window{{start: at(20), end: at(20)}}, 65 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &passLog{times: map[string][]time.Time{}}
			for _, s := range tc.passes {
				p.times["c-0000"] = append(p.times["c-0000"], at(s))
			}
			g, _ := p.longestGap("c-0000", at(0), at(100), tc.ws)
			if got := g.length(); got != tc.want {
				t.Errorf("longest gap %v, want %v (%+v)", got, tc.want, g)
			}
		})
	}
}

func TestReadReplicaLog(t *testing.T) {
	log := `# start 1 at 2026-01-01T00:00:00Z: /bin/hpa-controller-manager --tls-cert-file=/x/tls.crt --tls-private-key-file=/x/tls.key
I0101 00:00:01 leaderelection.go:1] "attempting to acquire leader lease"
E0101 00:00:30 observed a panic: runtime error
I0101 00:00:40 "Stopped leading"
# exit of start 1 at 2026-01-01T00:00:41Z: exit status 1
# start 2 at 2026-01-01T00:00:42Z: /bin/hpa-controller-manager
`
	path := filepath.Join(t.TempDir(), "replica.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	exits, panics, err := readReplicaLog("r0", path)
	if err != nil {
		t.Fatal(err)
	}
	if len(exits) != 1 || !exits[0].at.Equal(at(41)) || exits[0].how != "exit status 1" || len(exits[0].before) != 4 {
		t.Errorf("exits = %+v", exits)
	}
	if len(panics) != 1 {
		t.Errorf("panics = %q, want the one line", panics)
	}
	cert, key, err := replicaCertFiles(path)
	if err != nil || cert != "/x/tls.crt" || key != "/x/tls.key" {
		t.Errorf("replicaCertFiles = %q, %q, %v", cert, key, err)
	}
}

func TestGroupsAndValidate(t *testing.T) {
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatalf("the default options do not validate: %v", err)
	}
	m := members(o)
	if got := len(m[GroupZero]) + len(m[GroupFallback]) + len(m[GroupProm]) + len(m[GroupHand]); got != o.HPAs {
		t.Errorf("the groups hold %d HPAs, want %d", got, o.HPAs)
	}
	if len(m[GroupZero]) != o.ZeroHPAs || len(m[GroupFallback]) != o.FallbackHPAs || len(m[GroupProm]) != o.PromHPAs {
		t.Errorf("group sizes %d/%d/%d", len(m[GroupZero]), len(m[GroupFallback]), len(m[GroupProm]))
	}
	o.FallbackFaultOn = o.FallbackAfter
	if o.Validate() == nil {
		t.Error("a fault shorter than the fallback's deadline plus two periods validates")
	}
}
