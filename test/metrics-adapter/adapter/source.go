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

package adapter

import (
	"context"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Source gives the providers the current Config. Config must be cheap: the
// providers call it on every fetch.
type Source interface {
	Config() *Config
}

// StaticSource is a Source of fixed ConfigMap data, for tests.
type StaticSource struct{ config *Config }

// NewStaticSource parses data once.
func NewStaticSource(data map[string]string) *StaticSource {
	return &StaticSource{config: ParseConfig(data)}
}

// Config returns the parsed data.
func (s *StaticSource) Config() *Config { return s.config }

// ConfigMapSource is a Source that follows one ConfigMap with an informer:
// each change of its data replaces the Config that the providers read, and
// a deleted or missing ConfigMap means no metrics at all.
type ConfigMapSource struct {
	namespace, name string
	factory         informers.SharedInformerFactory
	informer        cache.SharedIndexInformer
	current         atomic.Pointer[Config]
}

// NewConfigMapSource watches namespace/name through client. Call Start
// before reading it.
func NewConfigMapSource(client kubernetes.Interface, namespace, name string) *ConfigMapSource {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
	s := &ConfigMapSource{
		namespace: namespace,
		name:      name,
		factory:   factory,
		informer:  factory.Core().V1().ConfigMaps().Informer(),
	}
	s.current.Store(ParseConfig(nil))
	return s
}

// Start starts the informer, which stops with ctx, and waits until it has
// read the ConfigMap (or learned that there is none) so that the first
// fetch already sees the data.
func (s *ConfigMapSource) Start(ctx context.Context) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "configMap", klog.KRef(s.namespace, s.name))
	_, err := s.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.update(logger, obj) },
		UpdateFunc: func(_, obj any) { s.update(logger, obj) },
		DeleteFunc: func(obj any) {
			if !s.ours(obj) {
				return
			}
			logger.Info("Test metrics ConfigMap deleted: no metrics")
			s.current.Store(ParseConfig(nil))
		},
	})
	if err != nil {
		return fmt.Errorf("watching ConfigMap %s/%s: %w", s.namespace, s.name, err)
	}
	s.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), s.informer.HasSynced) {
		return fmt.Errorf("ConfigMap %s/%s: informer did not sync: %w", s.namespace, s.name, context.Cause(ctx))
	}
	return nil
}

// Config returns the Config of the ConfigMap as last seen.
func (s *ConfigMapSource) Config() *Config { return s.current.Load() }

func (s *ConfigMapSource) update(logger klog.Logger, obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || !s.ours(obj) {
		return
	}
	config := ParseConfig(cm.Data)
	s.current.Store(config)
	logger.Info("Test metrics ConfigMap read", "resourceVersion", cm.ResourceVersion,
		"external", len(config.External), "objects", len(config.Objects), "pods", len(config.Pods),
		"problems", len(config.Problems))
	for _, p := range config.Problems {
		logger.Error(p, "Test metrics ConfigMap has a problem")
	}
}

// ours reports whether obj is the watched ConfigMap (or its tombstone). The
// informer's field selector already says so, but a client that ignores
// field selectors (a fake) must not mix ConfigMaps up.
func (s *ConfigMapSource) ours(obj any) bool {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	cm, ok := obj.(*corev1.ConfigMap)
	return ok && cm.Namespace == s.namespace && cm.Name == s.name
}
