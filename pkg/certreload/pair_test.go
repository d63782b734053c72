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

package certreload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/certreload/certreloadtest"
)

// pairFiles is one way of laying out and replacing the two files.
type pairFiles interface {
	paths() (certFile, keyFile string)
	write(t *testing.T, p certreloadtest.Pair)
}

func (f plainFiles) paths() (string, string)    { return f.certFile, f.keyFile }
func (v *secretVolume) paths() (string, string) { return v.CertFile(), v.KeyFile() }
func (v *secretVolume) write(t *testing.T, p certreloadtest.Pair) {
	t.Helper()
	v.Update(t, p)
}

func TestNewRefusesAPairThatDoesNotLoad(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	a, b := ca.Issue(t, 1), ca.Issue(t, 2)
	cases := []struct {
		name      string
		cert, key []byte // nil: the file does not exist
		wantCause string
	}{
		{name: "a missing certificate file", key: a.KeyPEM, wantCause: "no such file"},
		{name: "a missing key file", cert: a.CertPEM, wantCause: "no such file"},
		{name: "a key of another certificate", cert: a.CertPEM, key: b.KeyPEM, wantCause: "private key does not match public key"},
		{name: "a certificate file that is not PEM", cert: []byte("not a certificate"), key: a.KeyPEM, wantCause: "failed to find any PEM data"},
		{name: "an empty key file", cert: a.CertPEM, key: []byte{}, wantCause: "tls.key is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			for file, data := range map[string][]byte{certFile: tc.cert, keyFile: tc.key} {
				if data != nil {
					if err := os.WriteFile(file, data, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			logger, _ := ktesting.NewTestContext(t)
			_, err := New(logger, certFile, keyFile)
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, want := range []string{certFile, keyFile, tc.wantCause} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestGetCertificateFollowsTheFiles(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	a, b := ca.Issue(t, 1), ca.Issue(t, 2)
	cases := []struct {
		name          string
		secretVolume  bool
		change        func(t *testing.T, f pairFiles)
		wantSerial    int64
		wantReloaded  bool
		wantLoggedErr string // "": no error logged
	}{
		{name: "a pair rewritten in place is served from the next look",
			change:     func(t *testing.T, f pairFiles) { f.write(t, b) },
			wantSerial: b.Serial, wantReloaded: true},
		{name: "a Secret volume update, a ..data symlink swap, is served from the next look", secretVolume: true,
			change:     func(t *testing.T, f pairFiles) { f.write(t, b) },
			wantSerial: b.Serial, wantReloaded: true},
		{name: "a certificate whose key has not been written yet keeps the previous pair",
			change:        func(t *testing.T, f pairFiles) { writeFile(t, f, 0, b.CertPEM) },
			wantSerial:    a.Serial,
			wantLoggedErr: "private key does not match public key"},
		{name: "a half-written certificate keeps the previous pair",
			change: func(t *testing.T, f pairFiles) {
				writeFile(t, f, 1, b.KeyPEM)
				writeFile(t, f, 0, b.CertPEM[:len(b.CertPEM)/2])
			},
			wantSerial:    a.Serial,
			wantLoggedErr: "failed to find any PEM data"},
		{name: "an emptied key file keeps the previous pair",
			change:        func(t *testing.T, f pairFiles) { writeFile(t, f, 1, nil) },
			wantSerial:    a.Serial,
			wantLoggedErr: "tls.key is empty"},
		{name: "a removed certificate file keeps the previous pair",
			change: func(t *testing.T, f pairFiles) {
				certFile, _ := f.paths()
				if err := os.Remove(certFile); err != nil {
					t.Fatal(err)
				}
			},
			wantSerial:    a.Serial,
			wantLoggedErr: "no such file"},
		{name: "the same pair written again is not reloaded",
			change:     func(t *testing.T, f pairFiles) { f.write(t, a) },
			wantSerial: a.Serial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f pairFiles = newPlainFiles(t, a)
			if tc.secretVolume {
				f = newSecretVolume(t, a)
			}
			certFile, keyFile := f.paths()
			logger, log := bufferedLogger(t)
			clk := clocktesting.NewFakeClock(time.Now())
			p, err := newPair(logger, certFile, keyFile, clk)
			if err != nil {
				t.Fatal(err)
			}

			tc.change(t, f)
			clk.Step(checkInterval)
			if got := serialOf(t, p); got != tc.wantSerial {
				t.Errorf("served serial %d, want %d", got, tc.wantSerial)
			}
			if got := strings.Contains(log.String(), "Reloaded the serving certificate"); got != tc.wantReloaded {
				t.Errorf("reload logged = %v, want %v; log:\n%s", got, tc.wantReloaded, log)
			}
			errs := loggedErrors(log.Data())
			switch {
			case tc.wantLoggedErr == "" && len(errs) > 0:
				t.Errorf("logged errors %q, want none", errs)
			case tc.wantLoggedErr != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.wantLoggedErr)):
				t.Errorf("logged errors %q, want one containing %q", errs, tc.wantLoggedErr)
			}

			// The same broken files looked at again are not reported
			// again, and a good pair written after them is served.
			clk.Step(checkInterval)
			serialOf(t, p)
			if again := loggedErrors(log.Data()); len(again) != len(errs) {
				t.Errorf("logged errors %q after a second look at the same files, want %q", again, errs)
			}
			f.write(t, b)
			clk.Step(checkInterval)
			if got := serialOf(t, p); got != b.Serial {
				t.Errorf("after writing pair B: served serial %d, want %d", got, b.Serial)
			}
		})
	}
}

func TestFilesAreLookedAtAtMostOncePerCheckInterval(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	a, b := ca.Issue(t, 1), ca.Issue(t, 2)
	f := newPlainFiles(t, a)
	logger, _ := ktesting.NewTestContext(t)
	clk := clocktesting.NewFakeClock(time.Now())
	p, err := newPair(logger, f.certFile, f.keyFile, clk)
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, b)
	steps := []struct {
		sinceLoad time.Duration
		want      int64
	}{
		{0, a.Serial},
		{checkInterval - time.Nanosecond, a.Serial},
		{checkInterval, b.Serial},
	}
	loaded := clk.Now()
	for _, s := range steps {
		clk.SetTime(loaded.Add(s.sinceLoad))
		if got := serialOf(t, p); got != s.want {
			t.Errorf("%v after the load: served serial %d, want %d", s.sinceLoad, got, s.want)
		}
	}
}

func TestARewriteThatKeepsTheStatIsSeenOnlyWhileTheFilesAreFresh(t *testing.T) {
	ca := certreloadtest.NewCA(t)
	a := ca.Issue(t, 1)
	b := issueSameSize(t, ca, 2, a)
	cases := []struct {
		name string
		// settle is how long after loading A the files are looked at,
		// before B is written over them.
		settle time.Duration
		want   int64
	}{
		{name: "files modified within the racy window are compared by contents", settle: 0, want: b.Serial},
		{name: "files older than the racy window are trusted by their stat", settle: racyWindow, want: a.Serial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newPlainFiles(t, a)
			before := statBoth(t, f)
			logger, _ := ktesting.NewTestContext(t)
			// The clock starts at the later of the two modifications, so
			// that settle is measured from both.
			clk := clocktesting.NewFakeClock(latest(before[0].ModTime(), before[1].ModTime()))
			p, err := newPair(logger, f.certFile, f.keyFile, clk)
			if err != nil {
				t.Fatal(err)
			}
			if tc.settle > 0 {
				clk.Step(tc.settle)
				serialOf(t, p)
			}
			// B lands within the same timestamp tick: same inode, size
			// and modification time.
			f.write(t, b)
			for i, file := range []string{f.certFile, f.keyFile} {
				if err := os.Chtimes(file, before[i].ModTime(), before[i].ModTime()); err != nil {
					t.Fatal(err)
				}
			}
			after := statBoth(t, f)
			for i := range after {
				if !sameStat(before[i], after[i]) {
					t.Fatalf("the rewrite changed the stat of %s; the test needs it unchanged", after[i].Name())
				}
			}
			clk.Step(checkInterval)
			if got := serialOf(t, p); got != tc.want {
				t.Errorf("served serial %d, want %d", got, tc.want)
			}
		})
	}
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func serialOf(t *testing.T, p *Pair) int64 {
	t.Helper()
	cert, err := p.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return servedSerial(t, cert)
}

// writeFile replaces one of the files in place: 0 the certificate, 1 the key.
func writeFile(t *testing.T, f pairFiles, which int, data []byte) {
	t.Helper()
	certFile, keyFile := f.paths()
	if err := os.WriteFile([]string{certFile, keyFile}[which], data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func statBoth(t *testing.T, f plainFiles) [2]os.FileInfo {
	t.Helper()
	var infos [2]os.FileInfo
	for i, file := range []string{f.certFile, f.keyFile} {
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		infos[i] = info
	}
	return infos
}

// bufferedLogger logs to t and keeps the entries for the test to read.
func bufferedLogger(t *testing.T) (klog.Logger, ktesting.Buffer) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	return logger, logger.GetSink().(ktesting.Underlier).GetBuffer()
}

func loggedErrors(log ktesting.Log) []string {
	var errs []string
	for _, e := range log {
		if e.Type == ktesting.LogError {
			errs = append(errs, e.Message+": "+e.Err.Error())
		}
	}
	return errs
}
