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

// Command e2e-failures prints, from ginkgo JSON reports, what failed: each
// failed spec's name, where it failed, its failure message and the steps
// (By) that led there. A failed `make test` ends with it, so that the end of
// a CI log, often all that is kept, says why and not only which spec.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// Limits that keep a digest short enough for the end of a log.
const (
	maxMessageLines = 30
	lastSteps       = 6
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: e2e-failures REPORT.json...")
		os.Exit(2)
	}
	for _, path := range os.Args[1:] {
		if err := digest(os.Stdout, path); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
		}
	}
}

func digest(w io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return err
	}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.State.Is(types.SpecStateFailureStates) {
				writeSpec(w, path, s)
			}
		}
	}
	return nil
}

func writeSpec(w io.Writer, path string, s types.SpecReport) {
	fmt.Fprintf(w, "--- %s [%s] %s\n", path, s.State, s.FullText())
	at := s.Failure.Location.String()
	if t := s.Failure.TimelineLocation.Time; !t.IsZero() && !s.StartTime.IsZero() {
		at += fmt.Sprintf(" (%s into the spec)", t.Sub(s.StartTime).Round(time.Second))
	}
	fmt.Fprintf(w, "    at %s\n", at)
	var steps []string
	for _, e := range s.SpecEvents {
		if e.SpecEventType == types.SpecEventByStart {
			steps = append(steps, fmt.Sprintf("%s (%s)", e.Message, e.TimelineLocation.Time.Sub(s.StartTime).Round(time.Second)))
		}
	}
	if len(steps) > lastSteps {
		steps = steps[len(steps)-lastSteps:]
	}
	for _, step := range steps {
		fmt.Fprintf(w, "    step: %s\n", step)
	}
	lines := strings.Split(strings.TrimSpace(s.Failure.Message), "\n")
	if len(lines) > maxMessageLines {
		lines = append(lines[:maxMessageLines], fmt.Sprintf("(%d more lines in the report)", len(lines)-maxMessageLines))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "    | %s\n", l)
	}
}
