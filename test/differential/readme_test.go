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

package differential

import (
	"os"
	"strings"
	"testing"
)

// TestAllowListIsTheReadmesList holds the allow-list and the documentation's
// "Differences from upstream" (docs/differences-from-upstream.md, which the
// README links) to the same story: every difference a user can see of
// kube-hpa's doing is written there.
func TestAllowListIsTheReadmesList(t *testing.T) {
	page, err := os.ReadFile("../../docs/differences-from-upstream.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "# Differences from upstream\n")
	if !ok {
		t.Fatal(`docs/differences-from-upstream.md has no "# Differences from upstream" title`)
	}
	for _, a := range append(append([]allowed(nil), allowList...), seqAllowList...) {
		switch {
		case a.Readme != "" && !strings.Contains(section, a.Readme):
			t.Errorf("allow-list entry %q: docs/differences-from-upstream.md does not say %q", a.Class, a.Readme)
		case a.Readme == "" && !strings.HasPrefix(a.Visible, "none") && !strings.HasPrefix(a.Why, "not a difference of kube-hpa") && !strings.HasPrefix(a.Why, "UNTRIAGED"):
			t.Errorf("allow-list entry %q: a visible difference of kube-hpa's with no line in docs/differences-from-upstream.md", a.Class)
		}
	}
}
