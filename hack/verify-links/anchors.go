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
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	// A heading's inline markup is not part of its anchor: GitHub slugs
	// the rendered text, so links keep their text, images and code spans
	// their content.
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// slug turns a heading's text into the anchor GitHub gives it: lower case,
// every character other than a letter, a digit, a space, a hyphen or an
// underscore dropped, and each space made a hyphen.
func slug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// anchorSet gathers the anchors of one document's headings; a heading
// whose slug was already taken gets "-1", "-2" and so on, as GitHub numbers
// repeated headings.
type anchorSet struct {
	seen map[string]int
	all  map[string]bool
}

func newAnchorSet() *anchorSet {
	return &anchorSet{seen: map[string]int{}, all: map[string]bool{}}
}

func (a *anchorSet) addHeading(text string) {
	s := slug(text)
	n, dup := a.seen[s]
	a.seen[s] = n + 1
	if dup {
		s = s + "-" + strconv.Itoa(n)
	}
	a.all[s] = true
}

func (a *anchorSet) addExplicit(name string) { a.all[name] = true }

func (a *anchorSet) has(anchor string) bool { return a.all[strings.ToLower(anchor)] || a.all[anchor] }
