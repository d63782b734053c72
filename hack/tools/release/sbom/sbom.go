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

// Package sbom writes an SPDX 2.3 JSON document of a Go binary from the
// build information the Go linker embeds in it (what `go version -m`
// prints): the main module, every module linked in, and the toolchain.
package sbom

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Document is the subset of SPDX 2.3 this package fills.
type Document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      CreationInfo   `json:"creationInfo"`
	Packages          []Package      `json:"packages"`
	Relationships     []Relationship `json:"relationships"`
}

type CreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type Package struct {
	SPDXID           string        `json:"SPDXID"`
	Name             string        `json:"name"`
	VersionInfo      string        `json:"versionInfo,omitempty"`
	DownloadLocation string        `json:"downloadLocation"`
	FilesAnalyzed    bool          `json:"filesAnalyzed"`
	Checksums        []Checksum    `json:"checksums,omitempty"`
	ExternalRefs     []ExternalRef `json:"externalRefs,omitempty"`
	PrimaryPurpose   string        `json:"primaryPackagePurpose,omitempty"`
}

type Checksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type ExternalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type Relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// Options names the binary and the document.
type Options struct {
	Binary string
	// Name is the program's name; empty: the binary's file name.
	Name    string
	Version string
	Created time.Time
}

// FromBinary reads the binary's build information and describes it.
func FromBinary(o Options) (*Document, error) {
	info, err := buildinfo.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", o.Binary, err)
	}
	f, err := os.Open(o.Binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	name := o.Name
	if name == "" {
		name = filepath.Base(o.Binary)
	}
	doc := &Document{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              fmt.Sprintf("%s-%s", name, o.Version),
		DocumentNamespace: fmt.Sprintf("https://github.com/kube-hpa/kube-hpa/spdx/%s-%s-%s", name, o.Version, hex.EncodeToString(h.Sum(nil))[:16]),
		CreationInfo: CreationInfo{
			Created:  o.Created.UTC().Format(time.RFC3339),
			Creators: []string{"Tool: kube-hpa hack/tools/release/cmd/release-sbom", "Tool: " + info.GoVersion},
		},
	}
	binID := "SPDXRef-Package-binary"
	doc.Packages = append(doc.Packages, Package{
		SPDXID: binID, Name: name, VersionInfo: o.Version,
		DownloadLocation: "NOASSERTION", PrimaryPurpose: "APPLICATION",
		Checksums: []Checksum{{Algorithm: "SHA256", Value: hex.EncodeToString(h.Sum(nil))}},
	})
	doc.Relationships = append(doc.Relationships, Relationship{Element: "SPDXRef-DOCUMENT", Type: "DESCRIBES", Related: binID})

	add := func(path, version, rel string) {
		id := "SPDXRef-Package-" + spdxID(path)
		p := Package{
			SPDXID: id, Name: path, VersionInfo: version, DownloadLocation: "NOASSERTION",
			ExternalRefs: []ExternalRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: purl(path, version)}},
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, Relationship{Element: binID, Type: rel, Related: id})
	}
	// The release's version names the binary, whatever the toolchain read
	// from the checkout (a pseudo-version, or "(devel)" without -buildvcs).
	main := o.Version
	if main == "" {
		main = info.Main.Version
	}
	add(info.Main.Path, main, "CONTAINS")
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		add(m.Path, m.Version, "DEPENDS_ON")
	}
	doc.Packages = append(doc.Packages, Package{
		SPDXID: "SPDXRef-Package-go-stdlib", Name: "stdlib", VersionInfo: strings.TrimPrefix(info.GoVersion, "go"),
		DownloadLocation: "NOASSERTION",
		ExternalRefs:     []ExternalRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/stdlib@" + strings.TrimPrefix(info.GoVersion, "go")}},
	})
	doc.Relationships = append(doc.Relationships, Relationship{Element: binID, Type: "DEPENDS_ON", Related: "SPDXRef-Package-go-stdlib"})
	return doc, nil
}

// Write encodes doc as indented JSON.
func Write(w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// spdxID keeps the letters, digits, dots and dashes SPDX identifiers allow.
func spdxID(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '-'
	}, s)
}

func purl(path, version string) string {
	return "pkg:golang/" + strings.ToLower(path) + "@" + version
}
