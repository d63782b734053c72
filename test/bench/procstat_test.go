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

package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseCPUTime(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{name: "plain command", stat: "42 (kube-apiserver) S 1 42 42 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 12 0 100 0 0",
			want: 2800 * time.Millisecond},
		{name: "command with spaces and parentheses", stat: "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 0",
			want: 30 * time.Millisecond},
		{name: "no command", stat: "7 R 1", wantErr: true},
		{name: "short line", stat: "7 (x) R 1 2 3", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCPUTime([]byte(tc.stat))
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestParseStatusKB(t *testing.T) {
	status := "Name:\tx\nVmPeak:\t  2000 kB\nVmHWM:\t  1536 kB\n"
	if got, err := parseStatusKB([]byte(status), "VmHWM"); err != nil || got != 1536*1024 {
		t.Errorf("VmHWM = %d, %v; want %d", got, err, 1536*1024)
	}
	if _, err := parseStatusKB([]byte(status), "VmRSS"); err == nil {
		t.Error("a missing key parsed without error")
	}
}

func TestParseMachineCPU(t *testing.T) {
	busy, total, err := parseMachineCPU([]byte("cpu  100 5 50 800 20 3 2 1 0 0\ncpu0 1 2 3 4 5 6 7 8\n"))
	if err != nil || busy != 161 || total != 981 {
		t.Errorf("got busy %d total %d (%v), want 161 and 981", busy, total, err)
	}
	if _, _, err := parseMachineCPU([]byte("intr 1 2 3\n")); err == nil {
		t.Error("a line that is not the cpu line parsed without error")
	}
}

// TestOwnProcess reads this test's own /proc entries, the same files the
// benchmark reads for the controllers.
func TestOwnProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := cpuTime(os.Getpid()); err != nil {
		t.Error(err)
	}
	if rss, err := peakRSS(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("peak RSS %d, %v", rss, err)
	}
}
