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

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func TestDigest(t *testing.T) {
	start := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) types.TimelineLocation { return types.TimelineLocation{Time: start.Add(d)} }
	spec := func(text string, state types.SpecState, message string, steps ...string) types.SpecReport {
		s := types.SpecReport{LeafNodeText: text, State: state, StartTime: start,
			Failure: types.Failure{Message: message, Location: types.CodeLocation{FileName: "spec_test.go", LineNumber: 129}, TimelineLocation: at(90 * time.Second)}}
		for i, step := range steps {
			s.SpecEvents = append(s.SpecEvents, types.SpecEvent{SpecEventType: types.SpecEventByStart, Message: step, TimelineLocation: at(time.Duration(i) * time.Second)})
		}
		return s
	}
	var long []string
	for i := range maxMessageLines + 5 {
		long = append(long, "line "+strings.Repeat("x", i%3))
	}
	manySteps := make([]string, lastSteps+2)
	for i := range manySteps {
		manySteps[i] = "step " + string(rune('a'+i))
	}
	cases := []struct {
		name    string
		specs   []types.SpecReport
		want    []string
		notWant []string
	}{{
		name:  "a failed spec is named with its location, its steps and its message",
		specs: []types.SpecReport{spec("falls back", types.SpecStateFailed, "Expected\n    <int32>: 3\nto equal 2", "pausing Prometheus", "checking")},
		want:  []string{"[failed] falls back", "at spec_test.go:129 (1m30s into the spec)", "step: pausing Prometheus (0s)", "step: checking (1s)", "| to equal 2"},
	}, {
		name:    "a spec that passed or was skipped is left out",
		specs:   []types.SpecReport{spec("scales", types.SpecStatePassed, ""), spec("skipped", types.SpecStateSkipped, "")},
		notWant: []string{"scales", "skipped"},
	}, {
		name:  "a timed out spec counts as failed",
		specs: []types.SpecReport{spec("waits", types.SpecStateTimedout, "timed out")},
		want:  []string{"[timedout] waits", "| timed out"},
	}, {
		name:    "a long message and many steps are cut to the last ones",
		specs:   []types.SpecReport{spec("long", types.SpecStateFailed, strings.Join(long, "\n"), manySteps...)},
		want:    []string{"(5 more lines in the report)", "step: step h"},
		notWant: []string{"step: step b "},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal([]types.Report{{SpecReports: tc.specs}})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := digest(&out, path); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("digest lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("digest has %q:\n%s", w, out.String())
				}
			}
		})
	}
}
