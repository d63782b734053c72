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
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestUpstreamTrace runs the upstream world alone on the oracle's
// sequences and writes one digest of its observations per sequence to
// DIFFERENTIAL_TRACE_OUT, or compares them with the digests in
// DIFFERENTIAL_TRACE_WANT. hack/differential-intree.sh writes them with
// stock v1.37.2 and compares them in the intree build, whose upstream is
// the patched controller with HPAExternalMetricFallback off: the patch must
// change nothing a user could see while its gate is off.
func TestUpstreamTrace(t *testing.T) {
	out, want := os.Getenv("DIFFERENTIAL_TRACE_OUT"), os.Getenv("DIFFERENTIAL_TRACE_WANT")
	if out == "" && want == "" {
		t.Skip("needs DIFFERENTIAL_TRACE_OUT or DIFFERENTIAL_TRACE_WANT")
	}
	var lines []string
	for _, i := range indexes() {
		s := generatedSeq(*seedFlag, i)
		lines = append(lines, fmt.Sprintf("%d %x", i, traceDigest(t, runIn(t, s, upstreamController))))
	}
	if out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want == "" {
		return
	}
	wanted, err := readTrace(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(wanted) != len(lines) {
		t.Fatalf("%s has %d sequences, this run %d: run both with the same seed and size", want, len(wanted), len(lines))
	}
	differ := 0
	for k, line := range lines {
		if line != wanted[k] {
			if differ++; differ <= *showFlag {
				t.Errorf("upstream's world differs from %s at %q: compare its steps in `go test -run TestTrace -args -trace -seed %d -case %s`, stock and with hack/differential-intree.sh's -modfile and -tags intree", want, line, *seedFlag, strings.Fields(line)[0])
			}
		}
	}
	t.Logf("%d sequences, %d differ from %s", len(lines), differ, want)
}

// traceDigest is the digest of what a user sees in a run: every
// observation whole (scale, status, events), not only the fields that
// print. Upstream names the first pod (and container) it meets without a
// request, in map order, so which one a message names differs from run to
// run of the same code: the digest leaves that part out.
func traceDigest(t *testing.T, obs []observation) [sha256.Size]byte {
	data, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(podRequestError.ReplaceAll(data, []byte("(a pod without its request)")))
}

func readTrace(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
