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

package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// fieldManager owns what the package applies server-side.
const fieldManager = "kube-hpa-localcluster"

func crdResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
}

// InstallCRDs applies every CustomResourceDefinition of the YAML files in
// dir (server-side, so a second call updates them) and waits until each is
// Established, that is served.
func (c *Cluster) InstallCRDs(ctx context.Context, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no CRD (*.yaml) in %s", dir)
	}
	var names []string
	for _, file := range files {
		crds, err := readObjects(file)
		if err != nil {
			return err
		}
		for _, crd := range crds {
			if crd.GetKind() != "CustomResourceDefinition" {
				return fmt.Errorf("%s holds a %s, not a CustomResourceDefinition", file, crd.GetKind())
			}
			_, err := c.dynamic.Resource(crdResource()).Apply(ctx, crd.GetName(), crd,
				metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
			if err != nil {
				return fmt.Errorf("applying CRD %s from %s: %w", crd.GetName(), file, err)
			}
			names = append(names, crd.GetName())
		}
	}
	for _, name := range names {
		if err := c.waitFor(ctx, "CRD "+name+" to be Established", c.crdEstablished(name)); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) crdEstablished(name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		crd, err := c.dynamic.Resource(crdResource()).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return conditionTrue(crd, "Established")
	}
}

// conditionTrue reads status.conditions of an unstructured object.
func conditionTrue(obj *unstructured.Unstructured, conditionType string) (bool, error) {
	conditions, _, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	if err != nil {
		return false, err
	}
	for _, cond := range conditions {
		m, ok := cond.(map[string]any)
		if ok && m["type"] == conditionType {
			return m["status"] == "True", nil
		}
	}
	return false, nil
}

// readObjects decodes every non-empty document of a YAML file.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		err := decoder.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", file, err)
		}
		if len(obj.Object) == 0 || strings.TrimSpace(obj.GetKind()) == "" {
			continue // an empty document between two "---"
		}
		objs = append(objs, obj)
	}
}
