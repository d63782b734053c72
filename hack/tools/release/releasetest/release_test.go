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

package releasetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/hack/tools/release/image"
	"github.com/kube-hpa/kube-hpa/hack/tools/release/sbom"
)

const testVersion = "v0.0.0-releasetest"

// repoRoot is the kube-hpa checkout this module sits in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "hpa-controller-manager")); err != nil {
		t.Fatalf("no kube-hpa checkout at %s: %v", root, err)
	}
	return root
}

// goBuild cross-compiles pkg (in dir) statically, as hack/release.sh does.
func goBuild(t *testing.T, dir, pkg, arch, ldflags, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s for %s: %v\n%s", pkg, arch, err, b)
	}
}

// caBundle writes a PEM bundle of one self-signed CA, so that the test
// does not depend on the host's ca-certificates.
func caBundle(t *testing.T, path string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "releasetest CA"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type manifest struct {
	MediaType string       `json:"mediaType"`
	Manifests []descriptor `json:"manifests"`
	Config    descriptor   `json:"config"`
	Layers    []descriptor `json:"layers"`
}

type config struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string   `json:"User"`
		Entrypoint []string `json:"Entrypoint"`
		Cmd        []string `json:"Cmd"`
	} `json:"config"`
}

// layout is an OCI image layout tarball's files by name.
type layout map[string][]byte

func readLayout(t *testing.T, path string) layout {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := layout{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// blob returns the blob of d, failing t when its content does not hash to
// its digest or has another size.
func (l layout) blob(t *testing.T, d descriptor) []byte {
	t.Helper()
	algo, hexDigest, _ := strings.Cut(d.Digest, ":")
	b, ok := l["blobs/"+algo+"/"+hexDigest]
	if !ok {
		t.Fatalf("the layout has no blob %s", d.Digest)
	}
	sum := sha256.Sum256(b)
	if algo != "sha256" || hex.EncodeToString(sum[:]) != hexDigest || int64(len(b)) != d.Size {
		t.Fatalf("blob %s: content hashes to sha256:%x, %d bytes (descriptor says %d)", d.Digest, sum, len(b), d.Size)
	}
	return b
}

func (l layout) json(t *testing.T, d descriptor, v any) {
	t.Helper()
	if err := json.Unmarshal(l.blob(t, d), v); err != nil {
		t.Fatalf("blob %s: %v", d.Digest, err)
	}
}

// entry is a file of an image's root filesystem.
type entry struct {
	*tar.Header
	data []byte
}

// rootFS applies the image's layers in order and returns its files.
func (l layout) rootFS(t *testing.T, m manifest) map[string]entry {
	t.Helper()
	files := map[string]entry{}
	for _, d := range m.Layers {
		zr, err := gzip.NewReader(bytes.NewReader(l.blob(t, d)))
		if err != nil {
			t.Fatalf("layer %s: %v", d.Digest, err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer %s: %v", d.Digest, err)
			}
			name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = entry{Header: h, data: data}
		}
	}
	return files
}

// TestReleaseImage builds the image as make release does, from the real
// binary for linux/amd64 and a small stand-in for linux/arm64, and checks
// what a registry or a kubelet would read from it.
func TestReleaseImage(t *testing.T) {
	root := repoRoot(t)
	tmp := t.TempDir()

	versionCmd := exec.Command(filepath.Join(root, "hack", "version.sh"))
	versionCmd.Env = append(os.Environ(), "VERSION="+testVersion)
	ldflags, err := versionCmd.Output()
	if err != nil {
		t.Fatalf("hack/version.sh: %v", err)
	}
	amd64 := filepath.Join(tmp, "hpa-controller-manager-amd64")
	arm64 := filepath.Join(tmp, "standin-arm64")
	goBuild(t, root, "./cmd/hpa-controller-manager", "amd64", "-s -w "+strings.TrimSpace(string(ldflags)), amd64)
	goBuild(t, ".", "./testdata/standin", "arm64", "-s -w", arm64)
	certsPath := filepath.Join(tmp, "ca-certificates.crt")
	certs := caBundle(t, certsPath)

	opts := image.Options{
		Binaries:       map[string]string{"linux/amd64": amd64, "linux/arm64": arm64},
		CACertificates: certsPath,
		Entrypoint:     "/hpa-controller-manager",
		Version:        testVersion,
		Source:         "https://example.invalid/kube-hpa",
		Created:        time.Unix(1_700_000_000, 0).UTC(),
	}
	const ref = "example.invalid/hpa-controller-manager:" + testVersion
	tarballs := []string{filepath.Join(tmp, "a.oci.tar"), filepath.Join(tmp, "b.oci.tar")}
	for _, out := range tarballs {
		idx, err := image.Build(opts)
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		if err := image.WriteLayoutTarball(idx, ref, opts.Created, out); err != nil {
			t.Fatalf("WriteLayoutTarball: %v", err)
		}
	}
	first, _ := os.ReadFile(tarballs[0])
	second, _ := os.ReadFile(tarballs[1])
	if !bytes.Equal(first, second) {
		t.Error("two builds of the same inputs gave different tarballs: the image is not reproducible")
	}

	l := readLayout(t, tarballs[0])
	if got := string(l["oci-layout"]); !strings.Contains(got, `"imageLayoutVersion":"1.0.0"`) && !strings.Contains(got, `"imageLayoutVersion": "1.0.0"`) {
		t.Errorf("oci-layout = %q, want imageLayoutVersion 1.0.0", got)
	}
	var top manifest
	if err := json.Unmarshal(l["index.json"], &top); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Fatalf("index.json holds %+v, want the one image index", top.Manifests)
	}
	if got := top.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != ref {
		t.Errorf("the index is named %q, want %q", got, ref)
	}
	var idx manifest
	l.json(t, top.Manifests[0], &idx)

	byPlatform := map[string]descriptor{}
	for _, d := range idx.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		byPlatform[d.Platform.OS+"/"+d.Platform.Architecture] = d
	}
	if len(byPlatform) != 2 {
		t.Errorf("the index has the platforms %v, want linux/amd64 and linux/arm64", byPlatform)
	}

	tests := []struct {
		platform string
		machine  elf.Machine
	}{
		{platform: "linux/amd64", machine: elf.EM_X86_64},
		{platform: "linux/arm64", machine: elf.EM_AARCH64},
	}
	for _, tc := range tests {
		t.Run(tc.platform+" runs the binary of its architecture as 65532", func(t *testing.T) {
			d, ok := byPlatform[tc.platform]
			if !ok {
				t.Fatalf("no manifest for %s", tc.platform)
			}
			var m manifest
			l.json(t, d, &m)
			if m.MediaType != "application/vnd.oci.image.manifest.v1+json" {
				t.Errorf("manifest media type %q, want OCI's", m.MediaType)
			}
			var cfg config
			l.json(t, m.Config, &cfg)
			if got := cfg.OS + "/" + cfg.Architecture; got != tc.platform {
				t.Errorf("config is for %s, want %s", got, tc.platform)
			}
			if cfg.Config.User != "65532:65532" {
				t.Errorf("user %q, want 65532:65532", cfg.Config.User)
			}
			if len(cfg.Config.Entrypoint) != 1 || cfg.Config.Entrypoint[0] != "/hpa-controller-manager" || len(cfg.Config.Cmd) != 0 {
				t.Errorf("entrypoint %q cmd %q, want [/hpa-controller-manager] and no cmd", cfg.Config.Entrypoint, cfg.Config.Cmd)
			}

			files := l.rootFS(t, m)
			bin, ok := files["hpa-controller-manager"]
			if !ok || bin.Mode&0o111 == 0 {
				t.Fatalf("no executable /hpa-controller-manager in the image (%v)", bin.Header)
			}
			ef, err := elf.NewFile(bytes.NewReader(bin.data))
			if err != nil {
				t.Fatalf("/hpa-controller-manager is not an ELF binary: %v", err)
			}
			if ef.Machine != tc.machine {
				t.Errorf("/hpa-controller-manager is built for %v, want %v", ef.Machine, tc.machine)
			}
			for _, prog := range ef.Progs {
				if prog.Type == elf.PT_INTERP {
					t.Error("/hpa-controller-manager asks for a dynamic loader, which the image has none of: build it with CGO_ENABLED=0")
				}
			}
			if got, ok := files["etc/ssl/certs/ca-certificates.crt"]; !ok || !bytes.Equal(got.data, certs) {
				t.Error("/etc/ssl/certs/ca-certificates.crt is not the bundle given")
			}
			if got, ok := files["etc/passwd"]; !ok || !strings.Contains(string(got.data), ":65532:65532:") {
				t.Error("/etc/passwd has no entry for 65532")
			}
			if got, ok := files["tmp"]; !ok || got.Typeflag != tar.TypeDir || got.Mode&0o1777 != 0o1777 {
				t.Error("no world-writable sticky /tmp")
			}
		})
	}

	t.Run("the amd64 image's binary prints its version", func(t *testing.T) {
		var m manifest
		l.json(t, byPlatform["linux/amd64"], &m)
		extracted := filepath.Join(tmp, "extracted")
		if err := os.WriteFile(extracted, l.rootFS(t, m)["hpa-controller-manager"].data, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ arg, want string }{
			{arg: "--version", want: "hpa-controller-manager " + testVersion + "\n"},
			{arg: "--version=raw", want: fmt.Sprintf("GitVersion:%q", testVersion)},
		} {
			out, err := exec.Command(extracted, tc.arg).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.arg, err, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("%s printed %q, want %q in it", tc.arg, out, tc.want)
			}
		}
	})

	t.Run("the SBOM lists the modules linked into the binary", func(t *testing.T) {
		doc, err := sbom.FromBinary(sbom.Options{Binary: amd64, Version: testVersion, Created: opts.Created})
		if err != nil {
			t.Fatalf("FromBinary: %v", err)
		}
		var b bytes.Buffer
		if err := sbom.Write(&b, doc); err != nil {
			t.Fatal(err)
		}
		var parsed struct {
			SPDXVersion string `json:"spdxVersion"`
			Packages    []struct {
				Name    string `json:"name"`
				Version string `json:"versionInfo"`
			} `json:"packages"`
		}
		if err := json.Unmarshal(b.Bytes(), &parsed); err != nil {
			t.Fatalf("the SBOM is not JSON: %v", err)
		}
		want := map[string]string{
			"github.com/kube-hpa/kube-hpa": testVersion,
			"k8s.io/client-go":             clientGoVersion(t, root),
		}
		for _, p := range parsed.Packages {
			if v, ok := want[p.Name]; ok && v == p.Version {
				delete(want, p.Name)
			}
		}
		if parsed.SPDXVersion != "SPDX-2.3" || len(want) > 0 {
			t.Errorf("SBOM %s lacks %v", parsed.SPDXVersion, want)
		}
	})
}

// clientGoVersion is the client-go that the main module requires.
func clientGoVersion(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/client-go: %v", err)
	}
	return strings.TrimSpace(string(out))
}
