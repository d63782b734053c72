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
	"crypto/sha256"
	"fmt"
	"os"
	"time"
)

// racyWindow is how recently a file may have been modified for its stat to
// be doubted. File systems keep modification times at granularities from a
// nanosecond to two seconds (the kernel tick on ext4, a second on ext3 and
// some NFS servers, two on FAT), and a rewrite in place within one tick
// keeps the inode, the time and, for a renewed key of the same type, the
// size: the stat would not show it. While a file is that fresh its
// contents are compared instead.
const racyWindow = 3 * time.Second

// filesState is what the last look at the two files saw.
type filesState struct {
	// cert and key are the files as stat'ed, following symlinks: a Secret
	// volume replaces its files by pointing its `..data` symlink at a new
	// directory, so the path stays and the file behind it changes.
	cert, key os.FileInfo
	// racy is set when either file was modified within racyWindow of
	// being read, so an unchanged stat does not prove unchanged contents.
	racy bool
	// certSum and keySum hash the contents read, whether they loaded or
	// not: the same contents are neither loaded nor reported twice.
	certSum, keySum [sha256.Size]byte
}

// unchanged reports whether the files stat'ed as cert and key are the ones
// last read, as far as a stat can tell.
func (s filesState) unchanged(cert, key os.FileInfo) bool {
	return !s.racy && sameStat(s.cert, cert) && sameStat(s.key, key)
}

// sameContents reports whether t read what s read.
func (s filesState) sameContents(t filesState) bool {
	return s.certSum == t.certSum && s.keySum == t.keySum
}

func sameStat(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// snapshot is the two files read at one time.
type snapshot struct {
	state           filesState
	certPEM, keyPEM []byte
}

func statFiles(certFile, keyFile string) (cert, key os.FileInfo, err error) {
	if cert, err = os.Stat(certFile); err != nil {
		return nil, nil, err
	}
	if key, err = os.Stat(keyFile); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

// readFiles stats the files and then reads them. The stat comes first so
// that a change landing between the two shows at the next look, at worst
// reading the same contents once more.
func readFiles(certFile, keyFile string, now time.Time) (snapshot, error) {
	certInfo, keyInfo, err := statFiles(certFile, keyFile)
	if err != nil {
		return snapshot{}, err
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return snapshot{}, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return snapshot{}, err
	}
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		// Caught here to name the file: tls.X509KeyPair would only say it
		// found no PEM data.
		empty := certFile
		if len(keyPEM) == 0 {
			empty = keyFile
		}
		return snapshot{}, fmt.Errorf("%s is empty", empty)
	}
	return snapshot{
		state: filesState{
			cert:    certInfo,
			key:     keyInfo,
			racy:    now.Sub(certInfo.ModTime()) < racyWindow || now.Sub(keyInfo.ModTime()) < racyWindow,
			certSum: sha256.Sum256(certPEM),
			keySum:  sha256.Sum256(keyPEM),
		},
		certPEM: certPEM,
		keyPEM:  keyPEM,
	}, nil
}
