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

package testca

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// Names of the kubelet's atomic writer (pkg/volume/util/atomic_writer.go).
const (
	secretVolumeData    = "..data"
	secretVolumeDataTmp = "..data_tmp"
)

// WriteSecretVolume projects files into dir the way the kubelet updates a
// Secret volume: every file goes into a new timestamped directory, a
// ..data_tmp symlink to it is renamed over ..data, so all files change in
// one step, and then the previous directory is removed. Each name in dir
// is a symlink into ..data, made on the first write. A reader of dir/name
// sees the old or the new content at every moment, never none.
func WriteSecretVolume(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	previous, err := os.Readlink(filepath.Join(dir, secretVolumeData))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	generation, err := os.MkdirTemp(dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return err
	}
	if err := os.Chmod(generation, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(generation, name), data, 0o600); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, secretVolumeDataTmp)
	if err := os.Symlink(filepath.Base(generation), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, secretVolumeData)); err != nil {
		return err
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); errors.Is(err, os.ErrNotExist) {
			if err := os.Symlink(filepath.Join(secretVolumeData, name), link); err != nil {
				return err
			}
		}
	}
	if previous != "" {
		return os.RemoveAll(filepath.Join(dir, previous))
	}
	return nil
}
