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
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReadManifests decodes every object of a YAML file of several documents,
// skipping empty ones, so that the suite takes names and rules from
// deploy/ instead of repeating them.
func ReadManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeManifests(data)
}

// DecodeManifests is ReadManifests on bytes.
func DecodeManifests(data []byte) ([]*unstructured.Unstructured, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(obj.Object) == 0 || strings.TrimSpace(obj.GetKind()) == "" {
			continue
		}
		out = append(out, obj)
	}
}

// FindManifest returns the only object of kind in objs.
func FindManifest(objs []*unstructured.Unstructured, kind string) (*unstructured.Unstructured, error) {
	var found *unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != kind {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("more than one %s", kind)
		}
		found = o
	}
	if found == nil {
		return nil, fmt.Errorf("no %s", kind)
	}
	return found, nil
}
