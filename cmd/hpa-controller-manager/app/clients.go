package app

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
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
	scales, err := scale.NewForConfig(cfg.RESTConfig, mapper, dynamic.LegacyAPIPathResolverFunc,
		scale.NewDiscoveryScaleKindResolver(disc))
	if err != nil {
		return nil, fmt.Errorf("building the scale client: %w", err)
	}
	return &clients{kube: kube, hpa: hpa, scale: scales, mapper: mapper}, nil
}
