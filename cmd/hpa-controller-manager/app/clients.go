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

package app

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// clients are the API clients the controllers share.
type clients struct {
	kube   kubernetes.Interface
	hpa    *hpaclient.Client
	scale  scale.ScalesGetter
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// newClients builds the clients. All but the HPA client speak the content
// type of --kube-api-content-type; the HPA client speaks JSON, the only
// format custom resources are served in (hpaclient.New sees to it).
func newClients(cfg *config.Config) (*clients, error) {
	kube, err := kubernetes.NewForConfig(cfg.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	hpa, err := hpaclient.New(cfg.RESTConfig)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("building the discovery client: %w", err)
	}
	// A cached mapper, reset periodically by the controllers, so that a
	// scale target whose CRD appears later becomes scalable.
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	// scale.NewForConfig overwrites the GroupVersion and serializer of the
	// config it is given, which the metrics clients built later from
	// cfg.RESTConfig would otherwise inherit.
	scales, err := scale.NewForConfig(rest.CopyConfig(cfg.RESTConfig), mapper, dynamic.LegacyAPIPathResolverFunc,
		scale.NewDiscoveryScaleKindResolver(disc))
	if err != nil {
		return nil, fmt.Errorf("building the scale client: %w", err)
	}
	return &clients{kube: kube, hpa: hpa, scale: scales, mapper: mapper}, nil
}
