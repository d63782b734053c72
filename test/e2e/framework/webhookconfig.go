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
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kube-hpa/kube-hpa/pkg/webhook"
	"github.com/kube-hpa/kube-hpa/test/testca"
)

func validatingWebhookResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
}

// registerWebhook installs deploy/webhook.yaml with its clientConfig
// pointed at the round robin in front of the replicas: its rules, failure
// policy and time-out stay those of deploy/, so the suite tests what users
// install.
func (l *Local) registerWebhook(ctx context.Context) error {
	objs, err := ReadManifests(filepath.Join(l.config.RepoRoot, "deploy", "webhook.yaml"))
	if err != nil {
		return err
	}
	cfg, err := FindManifest(objs, "ValidatingWebhookConfiguration")
	if err != nil {
		return fmt.Errorf("deploy/webhook.yaml: %w", err)
	}
	// The cert-manager annotation has nothing to act on here: the CA
	// injected is the ca.crt of the replicas' Secret volume, as
	// cert-manager's CA injector takes it from the Certificate's Secret.
	cfg.SetAnnotations(nil)
	caBundle, err := os.ReadFile(filepath.Join(l.config.WebhookTLS.SecretDir, testca.CACertKey))
	if err != nil {
		return err
	}
	l.config.WebhookTLS.Configuration = cfg.GetName()
	webhooks, _, err := unstructured.NestedSlice(cfg.Object, "webhooks")
	if err != nil || len(webhooks) == 0 {
		return fmt.Errorf("deploy/webhook.yaml has no webhooks (%v)", err)
	}
	for i, w := range webhooks {
		hook, ok := w.(map[string]any)
		if !ok {
			return fmt.Errorf("deploy/webhook.yaml: webhooks[%d] is not an object", i)
		}
		path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
		if path != webhook.Path {
			return fmt.Errorf("deploy/webhook.yaml: webhooks[%d] calls path %q, the controller serves %q", i, path, webhook.Path)
		}
		hook["clientConfig"] = map[string]any{
			"url":      "https://" + l.proxy.Addr() + path,
			"caBundle": base64.StdEncoding.EncodeToString(caBundle),
		}
		webhooks[i] = hook
	}
	if err := unstructured.SetNestedSlice(cfg.Object, webhooks, "webhooks"); err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(l.cluster.RESTConfig())
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(validatingWebhookResource()).Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the ValidatingWebhookConfiguration: %w", err)
	}
	return nil
}
