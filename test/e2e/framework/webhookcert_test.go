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

package framework

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWriteSecretVolumeReplacesEveryFileInOneStep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "volume")
	first := map[string][]byte{"tls.crt": []byte("cert 1"), "tls.key": []byte("key 1")}
	if err := WriteSecretVolume(dir, first); err != nil {
		t.Fatal(err)
	}
	firstGeneration, err := os.Readlink(filepath.Join(dir, secretVolumeData))
	if err != nil {
		t.Fatal(err)
	}
	second := map[string][]byte{"tls.crt": []byte("cert 2"), "tls.key": []byte("key 2")}
	if err := WriteSecretVolume(dir, second); err != nil {
		t.Fatal(err)
	}
	for name, want := range second {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil || target != filepath.Join(secretVolumeData, name) {
			t.Errorf("%s links to %q (%v), want %s", name, target, err, filepath.Join(secretVolumeData, name))
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != string(want) {
			t.Errorf("%s reads %q (%v), want %q", name, got, err, want)
		}
	}
	for _, gone := range []string{firstGeneration, secretVolumeDataTmp} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is left in the volume (%v)", gone, err)
		}
	}
}

func TestCAIssuesServingCertificatesThatVerifyAfterASave(t *testing.T) {
	ca, err := NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := ca.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCA("other CA")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := loaded.Issue("127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	verify := func(pool *x509.CertPool, host string) error {
		_, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host})
		return err
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if err := verify(ca.Pool(), host); err != nil {
			t.Errorf("a leaf of the loaded CA does not verify for %s against the saved one: %v", host, err)
		}
	}
	if err := verify(other.Pool(), "127.0.0.1"); err == nil {
		t.Error("a leaf verifies against another CA")
	}
	if err := verify(ca.Pool(), "127.0.0.2"); err == nil {
		t.Error("a leaf verifies for a host it does not name")
	}
}

func TestWithMarkerReplacesItsOwnExpressionOnly(t *testing.T) {
	team := metav1.LabelSelectorRequirement{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}
	marker := func(v string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: configMarkerLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{v}}
	}
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		want     []metav1.LabelSelectorRequirement
	}{
		{"no selector", nil, []metav1.LabelSelectorRequirement{marker("2")}},
		{"a selector of the user's is kept", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{team}},
			[]metav1.LabelSelectorRequirement{team, marker("2")}},
		{"an earlier marker is replaced", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{marker("1"), team}},
			[]metav1.LabelSelectorRequirement{team, marker("2")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.selector.DeepCopy()
			got := withMarker(tc.selector, "2")
			if len(got.MatchExpressions) != len(tc.want) {
				t.Fatalf("got %v, want %v", got.MatchExpressions, tc.want)
			}
			for i := range tc.want {
				if got.MatchExpressions[i].Key != tc.want[i].Key || got.MatchExpressions[i].Values[0] != tc.want[i].Values[0] {
					t.Errorf("got %v, want %v", got.MatchExpressions, tc.want)
				}
			}
			if before != nil && len(before.MatchExpressions) != len(tc.selector.MatchExpressions) {
				t.Error("the selector passed in was changed")
			}
		})
	}
}
