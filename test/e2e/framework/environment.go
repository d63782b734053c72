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
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Environment is one ginkgo process's view of the environment: the Config
// and clients built from it.
type Environment struct {
	Config     Config
	RESTConfig *rest.Config
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface
	// Controllers acts on the hpa-controller-manager replicas; nil outside
	// the local environment of the CRD mode (ControllerManager is the
	// in-tree mode's).
	Controllers *Controllers
}

// NewEnvironment builds the clients of cfg.
func NewEnvironment(cfg Config) (*Environment, error) {
	restConfig, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig %s: %w", cfg.Kubeconfig, err)
	}
	// Specs create objects and poll in bursts from several processes; the
	// client-side default of 5 QPS would make them wait on themselves.
	restConfig.QPS, restConfig.Burst = 50, 100
	restConfig.UserAgent = "kube-hpa-e2e"
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	env := &Environment{Config: cfg, RESTConfig: restConfig, Kube: kube, Dynamic: dyn}
	if cfg.ControlURL != "" {
		env.Controllers = newControllers(cfg, NewControlClient(cfg.ControlURL))
	}
	return env, nil
}

// kubectlTimeout bounds one kubectl call.
const kubectlTimeout = time.Minute

// Kubectl runs kubectl against the environment with stdin (may be empty)
// and returns its standard output; the error carries standard error.
func (e *Environment) Kubectl(ctx context.Context, stdin string, args ...string) (string, error) {
	return tool{
		binary:  e.Config.Kubectl,
		args:    append([]string{"--kubeconfig=" + e.Config.Kubeconfig}, args...),
		stdin:   stdin,
		timeout: kubectlTimeout,
	}.run(ctx)
}

// waitReady returns once the local environment is usable: a replica leads
// and is ready, and the webhook answers through the API server. The
// in-tree mode has neither (localcluster waited for
// kube-controller-manager).
func (e *Environment) waitReady(ctx context.Context) error {
	if e.Config.Mode == ModeInTree {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if e.Controllers != nil {
		if _, err := e.Controllers.WaitForLeader(ctx, -1); err != nil {
			return err
		}
	}
	return e.waitWebhook(ctx)
}
