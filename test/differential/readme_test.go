package differential

import (
	"os"
	"strings"
	"testing"
)

// TestAllowListIsTheReadmesList holds the allow-list and the README's
// "Differences from upstream" to the same story: every difference a user
// can see of kube-hpa's doing is written there.
func TestAllowListIsTheReadmesList(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Differences from upstream\n")
	if !ok {
		t.Fatal(`README.md has no "## Differences from upstream" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, a := range append(append([]allowed(nil), allowList...), seqAllowList...) {
		switch {
		case a.Readme != "" && !strings.Contains(section, a.Readme):
			t.Errorf("allow-list entry %q: the README's differences do not say %q", a.Class, a.Readme)
		case a.Readme == "" && !strings.HasPrefix(a.Visible, "none") && !strings.HasPrefix(a.Why, "not a difference of kube-hpa") && !strings.HasPrefix(a.Why, "UNTRIAGED"):
			t.Errorf("allow-list entry %q: a visible difference of kube-hpa's with no README line", a.Class)
		}
	}
}
