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

package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/component-base/metrics"
)

func TestVersionFlag(t *testing.T) {
	info := apimachineryversion.Info{GitVersion: "v0.3.1", GitCommit: "abc123", GitTreeState: "clean", BuildDate: "2026-11-28T00:00:00Z", GoVersion: "go1.26.8"}
	tests := []struct {
		name        string
		args        []string
		wantPrinted bool
		want        []string
	}{
		{name: "no flag runs the controller", args: nil, wantPrinted: false},
		{name: "a bare --version prints the program and its git version", args: []string{"--version"}, wantPrinted: true, want: []string{"hpa-controller-manager v0.3.1\n"}},
		{name: "--version=raw prints every field", args: []string{"--version=raw"}, wantPrinted: true,
			want: []string{`GitVersion:"v0.3.1"`, `GitCommit:"abc123"`, `GitTreeState:"clean"`, `BuildDate:"2026-11-28T00:00:00Z"`, `GoVersion:"go1.26.8"`}},
		{name: "--version=false runs the controller", args: []string{"--version=false"}, wantPrinted: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			req := addVersionFlag(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatalf("Parse(%q): %v", tc.args, err)
			}
			var out bytes.Buffer
			printed, err := printVersion(&out, *req, info)
			if err != nil {
				t.Fatalf("printVersion: %v", err)
			}
			if printed != tc.wantPrinted {
				t.Errorf("printed = %v, want %v (output %q)", printed, tc.wantPrinted, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output %q lacks %q", out.String(), w)
				}
			}
			if !tc.wantPrinted && out.Len() > 0 {
				t.Errorf("wrote %q while not asked to", out.String())
			}
		})
	}
}

func TestVersionFlagRejectsOtherValues(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	addVersionFlag(fs)
	if err := fs.Parse([]string{"--version=v9.9.9"}); err == nil {
		t.Error("--version=v9.9.9 was accepted; only true, false and raw are")
	}
}

// TestBuildInfoIsServed checks that /metrics carries kubernetes_build_info
// once registered, labelled with the build's git version.
func TestBuildInfoIsServed(t *testing.T) {
	registry := metrics.NewKubeRegistry()
	registerBuildInfo(registry)
	families, err := metricsGatherer(registry).Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != "kubernetes_build_info" {
			continue
		}
		for _, l := range f.GetMetric()[0].GetLabel() {
			if l.GetName() == "git_version" && l.GetValue() != "" {
				return
			}
		}
		t.Fatalf("kubernetes_build_info has no git_version label: %v", f)
	}
	t.Fatal("/metrics serves no kubernetes_build_info")
}
