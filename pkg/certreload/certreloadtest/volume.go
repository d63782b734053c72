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

package certreloadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SecretVolume lays its files out the way the kubelet projects a Secret:
// tls.crt -> ..data/tls.crt, ..data -> ..<generation>/, and an update
// writes a new generation directory and renames a fresh symlink over
// ..data, so both files change in one step.
type SecretVolume struct {
	dir        string
	generation int
}

// NewSecretVolume projects p into a new temporary directory.
func NewSecretVolume(t testing.TB, p Pair) *SecretVolume {
	t.Helper()
	v := &SecretVolume{dir: t.TempDir()}
	v.Update(t, p)
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// CertFile is the path a server is configured with, through the symlinks.
func (v *SecretVolume) CertFile() string { return filepath.Join(v.dir, "tls.crt") }

// KeyFile is the path a server is configured with, through the symlinks.
func (v *SecretVolume) KeyFile() string { return filepath.Join(v.dir, "tls.key") }

// Update replaces both files with p as the kubelet does when the Secret
// changes.
func (v *SecretVolume) Update(t testing.TB, p Pair) {
	t.Helper()
	v.generation++
	gen := fmt.Sprintf("..gen_%d", v.generation)
	if err := os.Mkdir(filepath.Join(v.dir, gen), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.dir, gen, "tls.crt"), p.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.dir, gen, "tls.key"), p.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(gen, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if v.generation > 1 {
		// The kubelet removes the old generation once ..data has moved.
		if err := os.RemoveAll(filepath.Join(v.dir, fmt.Sprintf("..gen_%d", v.generation-1))); err != nil {
			t.Fatal(err)
		}
	}
}
