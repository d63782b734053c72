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
	"strings"
	"testing"
	"testing/fstest"
)

func TestSlugIsGitHubsHeadingAnchor(t *testing.T) {
	cases := []struct {
		name, heading, want string
	}{
		{"words are lower-cased and joined by hyphens", "The two commands", "the-two-commands"},
		{"punctuation is dropped, hyphens stay", "Safety: other writers, faults and slow-providers", "safety-other-writers-faults-and-slow-providers"},
		{"code spans keep their text", "The `strategy` field", "the-strategy-field"},
		{"a link keeps its text only", "In-tree mode: [KEP-5679](https://kep.k8s.io/5679)", "in-tree-mode-kep-5679"},
		{"parentheses and dots are dropped", "Sharded replicas (KEP-5866) v1.37", "sharded-replicas-kep-5866-v137"},
		{"underscores stay", "foo_bar", "foo_bar"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := slug(tc.heading); got != tc.want {
				t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

func TestCheckFindsBrokenLinksAndAnchors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the problems, in order; none for a clean tree
	}{
		{
			name: "a link to an existing page and heading passes",
			files: map[string]string{
				"README.md":        "See [fallback](docs/fallback.md#fallback-strategy).\n",
				"docs/fallback.md": "# Fallback\n\n## Fallback strategy\n",
			},
		},
		{
			name:  "a link to a missing file fails",
			files: map[string]string{"README.md": "See [gone](docs/gone.md).\n"},
			want:  []string{"README.md:1: docs/gone.md: no such file"},
		},
		{
			name: "an anchor no heading has fails",
			files: map[string]string{
				"README.md": "See [x](docs/a.md#nope).\n",
				"docs/a.md": "# A\n",
			},
			want: []string{"no heading with anchor #nope in docs/a.md"},
		},
		{
			name:  "an anchor within the same page is checked",
			files: map[string]string{"README.md": "# Top\n\n[up](#top) [bad](#bottom)\n"},
			want:  []string{"README.md:3: #bottom"},
		},
		{
			name: "a link from a subdirectory resolves against that directory",
			files: map[string]string{
				"docs/a.md": "[readme](../README.md#top) [b](b.md)\n",
				"README.md": "# Top\n",
				"docs/b.md": "# B\n",
			},
		},
		{
			name: "a repeated heading's anchor gets a number",
			files: map[string]string{
				"README.md": "# A\n## Flags\n## Flags\n[second](#flags-1) [third](#flags-2)\n",
			},
			want: []string{"#flags-2"},
		},
		{
			name: "links in fenced code and code spans, and external links, are not followed",
			files: map[string]string{
				"README.md": "```\n[x](missing.md)\n```\n`[y](missing.md)` [z](https://example.com/missing.md)\n",
			},
		},
		{
			name: "headings in fenced code define no anchor",
			files: map[string]string{
				"README.md": "```sh\n# not a heading\n```\n[x](#not-a-heading)\n",
			},
			want: []string{"#not-a-heading"},
		},
		{
			name:  "a reference definition is checked",
			files: map[string]string{"README.md": "[x][ref]\n\n[ref]: docs/none.md\n"},
			want:  []string{"docs/none.md: no such file"},
		},
		{
			name:  "a link leaving the repository fails",
			files: map[string]string{"README.md": "[x](../other/README.md)\n"},
			want:  []string{"points outside the repository"},
		},
		{
			name:  "build output is not checked",
			files: map[string]string{"_output/x/README.md": "[x](missing.md)\n"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, c := range tc.files {
				fsys[p] = &fstest.MapFile{Data: []byte(c)}
			}
			got, err := check(fsys)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems = %q, want %d matching %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
