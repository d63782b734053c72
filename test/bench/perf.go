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
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// perfRecording is a `perf record` of one process for a fixed time. perf
// samples the unchanged binary from outside, so the controller under test
// carries no profiling endpoint.
type perfRecording struct {
	cmd    *exec.Cmd
	data   string
	stderr bytes.Buffer
}

// perfFrequency samples at a prime rate, so sampling does not lock onto
// the controllers' periodic work; low enough to cost about a percent.
const perfFrequency = 499

// startPerf records call graphs of pid for d into data.
func startPerf(pid int, d time.Duration, data string) (*perfRecording, error) {
	path, err := exec.LookPath("perf")
	if err != nil {
		return nil, err
	}
	p := &perfRecording{data: data}
	p.cmd = exec.Command(path, "record", "-F", strconv.Itoa(perfFrequency), "-g", "-p", strconv.Itoa(pid),
		"-o", data, "--", "sleep", strconv.FormatFloat(d.Seconds(), 'f', 0, 64))
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// report waits for the recording and writes two views next to it: flat
// (where the CPU goes) and cumulative (which call paths cost most). It
// returns the path of the flat one.
func (p *perfRecording) report() (string, error) {
	if err := p.cmd.Wait(); err != nil {
		return "", fmt.Errorf("perf record: %w: %s", err, strings.TrimSpace(p.stderr.String()))
	}
	views := []struct {
		suffix string
		args   []string
	}{
		{".flat.txt", []string{"--no-children", "--sort", "symbol", "-g", "none", "--percent-limit", "0.7"}},
		{".cumulative.txt", []string{"--children", "--sort", "symbol", "-g", "none", "--percent-limit", "2"}},
	}
	for _, v := range views {
		args := append([]string{"report", "-i", p.data, "--stdio"}, v.args...)
		out, err := exec.Command("perf", args...).Output()
		if err != nil {
			return "", fmt.Errorf("perf report: %w", err)
		}
		if err := os.WriteFile(strings.TrimSuffix(p.data, ".data")+v.suffix, tidyPerfReport(out), 0o644); err != nil {
			return "", err
		}
	}
	return strings.TrimSuffix(p.data, ".data") + views[0].suffix, nil
}

// tidyPerfReport keeps the sample count and the rows of a perf report,
// without its other comments, blank lines and empty IPC columns.
func tidyPerfReport(report []byte) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(string(report), "\n") {
		switch {
		case strings.HasPrefix(line, "# Samples"):
		case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
			continue
		}
		line = strings.TrimRight(line, " ")
		line = strings.TrimSuffix(line, "-      -")
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.Bytes()
}
