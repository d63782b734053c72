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
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/metrics/pkg/apis/custom_metrics"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// sameResource reports whether kind, as written in a ConfigMap key (a Kind
// or a singular or plural resource name, in any case), names the resource
// gr of a request (deployments.apps, deployments or deployment). With a
// RESTMapper both sides resolve to a group and resource; without one, or
// when either side is unknown to it, the names are compared as strings.
func (p *Provider) sameResource(kind string, gr schema.GroupResource) bool {
	kind = strings.ToLower(kind)
	if p.mapper != nil {
		keyGVR, keyErr := p.mapper.ResourceFor(schema.GroupVersionResource{Resource: kind})
		reqGVR, reqErr := p.mapper.ResourceFor(gr.WithVersion(""))
		if keyErr == nil && reqErr == nil {
			return keyGVR.GroupResource() == reqGVR.GroupResource()
		}
	}
	r := strings.ToLower(gr.Resource)
	return r == kind || r == kind+"s" || r == kind+"es"
}

func (p *Provider) isPods(gr schema.GroupResource) bool {
	return (gr.Group == "" || gr.Group == "core") && p.sameResource("pod", schema.GroupResource{Resource: gr.Resource})
}

// describe is the reference to an object that answers carry: its kind and
// API version come from the RESTMapper when it knows the resource.
func (p *Provider) describe(gr schema.GroupResource, name types.NamespacedName) custom_metrics.ObjectReference {
	ref := custom_metrics.ObjectReference{Kind: gr.Resource, Namespace: name.Namespace, Name: name.Name}
	if p.mapper != nil {
		if gvk, err := p.mapper.KindFor(gr.WithVersion("")); err == nil {
			ref.Kind = gvk.Kind
			ref.APIVersion = gvk.GroupVersion().String()
		}
	}
	return ref
}

// ListAllMetrics lists the custom metrics of the ConfigMap by resource,
// for API discovery.
func (p *Provider) ListAllMetrics() []provider.CustomMetricInfo {
	config := p.source.Config()
	seen := map[provider.CustomMetricInfo]bool{}
	for _, o := range config.Objects {
		gr, namespaced := p.resourceOf(o.Kind)
		seen[provider.CustomMetricInfo{GroupResource: gr, Namespaced: namespaced, Metric: o.MetricName}] = true
	}
	for metric := range config.Pods {
		seen[provider.CustomMetricInfo{GroupResource: schema.GroupResource{Resource: "pods"}, Namespaced: true, Metric: metric}] = true
	}
	out := make([]provider.CustomMetricInfo, 0, len(seen))
	for info := range seen {
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b provider.CustomMetricInfo) int {
		return cmp.Or(cmp.Compare(a.GroupResource.String(), b.GroupResource.String()), cmp.Compare(a.Metric, b.Metric))
	})
	return out
}

// resourceOf resolves the kind of a key to its resource and scope; an
// unknown kind stays as written, lowercased, and is taken as namespaced.
func (p *Provider) resourceOf(kind string) (schema.GroupResource, bool) {
	kind = strings.ToLower(kind)
	if p.mapper == nil {
		return schema.GroupResource{Resource: kind}, true
	}
	gvr, err := p.mapper.ResourceFor(schema.GroupVersionResource{Resource: kind})
	if err != nil {
		return schema.GroupResource{Resource: kind}, true
	}
	namespaced := true
	if gvk, err := p.mapper.KindFor(gvr); err == nil {
		if mapping, err := p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			namespaced = mapping.Scope.Name() == meta.RESTScopeNameNamespace
		}
	}
	return gvr.GroupResource(), namespaced
}
