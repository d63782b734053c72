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
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/plotutil"
)

// The sample is what test/bench's WriteJSON writes for a run of three
// sizes, upstream out of memory at the largest (test/bench keeps it so).
const sample = "testdata/latest.json"

func TestReadScaling(t *testing.T) {
	type point struct{ X, Y float64 }
	type got struct {
		Title       string
		Sizes       []int
		Legends     []string
		Memory, CPU [][]point
	}
	summarize := func(s scaling) got {
		g := got{Title: s.title, Sizes: s.sizes}
		for _, se := range s.series {
			g.Legends = append(g.Legends, se.legend())
			var memory, cpu []point
			for _, p := range se.memory {
				memory = append(memory, point{p.X, p.Y})
			}
			for _, p := range se.cpu {
				cpu = append(cpu, point{p.X, p.Y})
			}
			g.Memory, g.CPU = append(g.Memory, memory), append(g.CPU, cpu)
		}
		return g
	}
	sampleJSON, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		json    string
		want    got
		wantErr string
	}{
		{
			name: "the sample: a series per controller in the run's order, no point where a controller failed, and the legend says so",
			json: string(sampleJSON),
			want: got{
				Title:   "hpa-bench scaling: memory and CPU by HPA count, 5 pods per HPA; 2 cores (AMD EPYC), 23.5 GiB",
				Sizes:   []int{1000, 5000, 10000},
				Legends: []string{"upstream (not measured at 10000 HPAs)", "kube-hpa"},
				Memory:  [][]point{{{1000, 150}, {5000, 550}}, {{1000, 120}, {5000, 280}, {10000, 400}}},
				CPU:     [][]point{{{1000, 1.5}, {5000, 2.5}}, {{1000, 0.6}, {5000, 0.65}, {10000, 0.7}}},
			},
		},
		{
			name: "a size that did not fit has no controllers and no points",
			json: `{"machine": {"cores": 4, "cpuModel": "x", "memoryGiB": 8}, "scaling": {"podsPerHPA": 1, "sizes": [
				{"setup": {"hpas": 100}, "controllers": [{"name": "kube-hpa", "peakRSSBytes": 1048576, "steady": {"controllerCPUSecondsPer1000": 0.5}}]},
				{"setup": {"hpas": 200}, "controllers": [], "error": "timeout"}]}}`,
			want: got{
				Title:   "hpa-bench scaling: memory and CPU by HPA count, 1 pods per HPA; 4 cores (x), 8.0 GiB",
				Sizes:   []int{100, 200},
				Legends: []string{"kube-hpa (not measured at 200 HPAs)"},
				Memory:  [][]point{{{100, 1}}},
				CPU:     [][]point{{{100, 0.5}}},
			},
		},
		{name: "a run without the scaling scenario", json: `{"machine": {"cores": 2}, "name": "default"}`, wantErr: "no scaling scenario"},
		{name: "a scaling scenario where nothing fit", json: `{"scaling": {"sizes": [{"setup": {"hpas": 100}, "error": "timeout"}]}}`, wantErr: "no size"},
		{name: "not a result", json: `[1, 2]`, wantErr: "decoding the result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := readScaling(strings.NewReader(tc.json))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(s)); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDrawScaling(t *testing.T) {
	f, err := os.Open(sample)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	s, err := readScaling(f)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := drawScaling(s, &svg); err != nil {
		t.Fatal(err)
	}
	out := svg.String()
	for _, want := range []string{
		`^<\?xml version="1.0"\?>\n(<!--.*-->\n)?<svg `,
		`>hpa-bench scaling: memory and CPU by HPA count, 5 pods per HPA; 2 cores \(AMD EPYC\), 23\.5 GiB</text>`,
		`>Memory: peak RSS</text>`, `>MiB</text>`,
		`>CPU per 1,000 reconciles, steady window</text>`, `>CPU seconds</text>`,
		`>HPAs</text>`, `>10000</text>`,
		`</svg>\n$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	// Each series is in both panels' legends, and drawn in both in its
	// color.
	for _, legend := range []string{"upstream (not measured at 10000 HPAs)", "kube-hpa"} {
		if n := strings.Count(out, ">"+legend+"</text>"); n != 2 {
			t.Errorf("%q is in %d legends, want one per panel", legend, n)
		}
	}
	for i := range 2 {
		if color := colorOf(i); !strings.Contains(out, "stroke:"+color) {
			t.Errorf("no line of series %d's color %s", i, color)
		}
	}
}

// colorOf is the SVG color of series i.
func colorOf(i int) string {
	r, g, b, _ := plotutil.DarkColors[i].RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

func TestRunWritesTheSVGBesideTheResult(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/latest.json", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-in", dir + "/latest.json"}); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(dir + "/scaling.svg")
	if err != nil || !bytes.Contains(svg, []byte("</svg>")) {
		t.Errorf("scaling.svg: %d bytes, %v", len(svg), err)
	}
}
