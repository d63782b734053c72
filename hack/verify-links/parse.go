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
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// link is one link target found in a document, with the line it is on.
type link struct {
	line   int
	target string
}

// document is what the checker needs from one Markdown file: its links and
// the anchors its headings and HTML anchors define.
type document struct {
	links   []link
	anchors *anchorSet
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	fence      = regexp.MustCompile("^ {0,3}(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	// An inline link or image: the target runs to the first space (a title
	// may follow) or the closing parenthesis.
	inlineTarget  = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
)

// parse reads a Markdown document. Fenced code blocks and code spans are
// skipped: a link shown as an example there is not followed by GitHub.
func parse(content []byte) document {
	doc := document{anchors: newAnchorSet()}
	inFence := ""
	sc := bufio.NewScanner(bytes.NewReader(content))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			switch {
			case inFence == "":
				inFence = m[1]
			case inFence == m[1]:
				inFence = ""
			}
			continue
		}
		if inFence != "" {
			continue
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			doc.anchors.addHeading(m[2])
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			doc.anchors.addExplicit(m[1])
		}
		text := codeSpan.ReplaceAllString(line, "")
		if m := refDefinition.FindStringSubmatch(text); m != nil {
			doc.links = append(doc.links, link{line: n, target: m[1]})
			continue
		}
		for _, m := range inlineTarget.FindAllStringSubmatch(text, -1) {
			doc.links = append(doc.links, link{line: n, target: m[1]})
		}
	}
	return doc
}

// external tells a link that leaves the repository (a scheme such as
// https: or mailto:), which the checker does not follow.
func external(target string) bool {
	i := strings.Index(target, ":")
	if i <= 0 {
		return false
	}
	for _, r := range target[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
