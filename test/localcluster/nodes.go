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
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// createNodes creates Options.Nodes nodes for kwok to play. They carry no
// taint, so ordinary workloads schedule on them without tolerations.
func (c *Cluster) createNodes(ctx context.Context) error {
	for i := range c.opts.Nodes {
		node := fakeNode(fmt.Sprintf("kwok-node-%d", i))
		if _, err := c.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
		c.nodeNames = append(c.nodeNames, node.Name)
	}
	return nil
}

func fakeNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				// kwok manages only the nodes its selector matches.
				kwokNodeAnnotationKey:         kwokNodeAnnotationValue,
				resourceMetricsPathAnnotation: resourceMetricsPath(name),
			},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
		},
	}
}

// CreateNamespace creates a namespace and waits until pods can be created
// in it (its default ServiceAccount exists).
func (c *Cluster) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return c.waitFor(ctx, "the default ServiceAccount of namespace "+name, c.defaultServiceAccountExists(name))
}
