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

package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// The sync period mix (KEP-6003): kube-hpa alone, on extended HPAs (the
// CRD: native autoscaling/v2 has no syncPeriodSeconds), in three steady
// windows: the proposals' gates off, every gate on, and every gate on with
// one HPA in mixFastEvery at mixFastPeriod. Cost per reconcile should not
// move between them: the mix costs more in proportion to its reconcile
// rate, and the gates alone cost nothing.
const (
	mixFastEvery  = 10
	mixFastPeriod = 3 * time.Second
)

// proposalGates are the feature gates of the proposals ahead of upstream.
const proposalGates = "--feature-gates=HPAExternalMetricFallback=true,HPAExternalMetricFallbackStrategy=true," +
	"HPAConfigurableSyncPeriod=true,KubeHPADecisionTrace=true"

// The controllers of the mix, among controllerSpecs.
const (
	mixGatesOff = "kube-hpa-extended"
	mixGatesOn  = "kube-hpa-extended-gates"
)

// MixResult is the sync period mix: three windows of kube-hpa on extended
// HPAs.
type MixResult struct {
	// FastHPAs of the HPAs run at FastPeriod in the Mix window; the others
	// at the global sync period.
	FastHPAs   int    `json:"fastHPAs"`
	FastPeriod string `json:"fastPeriod"`
	// GatesOff and GatesOn have every HPA at the global period; Mix has
	// the fast ones too, with every gate on.
	GatesOff Phase `json:"gatesOff"`
	GatesOn  Phase `json:"gatesOn"`
	Mix      Phase `json:"mix"`
}

// fastHPA says whether HPA i runs at mixFastPeriod in the mix.
func fastHPA(i int) bool { return i%mixFastEvery == 0 }

// fastHPAs counts the HPAs of the mix at mixFastPeriod.
func fastHPAs(hpas int) int { return (hpas + mixFastEvery - 1) / mixFastEvery }

// expectedRate is how many reconciles per second the periods ask for:
// each HPA once per its period.
func expectedRate(hpas, fast int, fastPeriod, period time.Duration) float64 {
	return float64(fast)/fastPeriod.Seconds() + float64(hpas-fast)/period.Seconds()
}

// extendedHPA is HPA i of the workload as the extended kind.
func extendedHPA(i int, o Options) (*unstructured.Unstructured, error) {
	hpa := v2.FromNative(hpa(i, o))
	hpa.APIVersion, hpa.Kind = v2.SchemeGroupVersion.String(), "HorizontalPodAutoscaler"
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hpa)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// measureMix runs kube-hpa on extended HPAs in the three windows.
func (r *runner) measureMix(ctx context.Context, specs map[string]controllerSpec) (*MixResult, error) {
	o := r.opts
	dyn, err := dynamic.NewForConfig(r.cluster.RESTConfig())
	if err != nil {
		return nil, err
	}
	hpas := dyn.Resource(v2.SchemeGroupVersion.WithResource(v2.Resource)).Namespace(Namespace)
	if err := r.forEachHPA(ctx, func(ctx context.Context, i int) error {
		obj, err := extendedHPA(i, o)
		if err != nil {
			return err
		}
		if _, err := hpas.Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating extended HPA %s: %w", workloadName(i), err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	res := &MixResult{FastHPAs: fastHPAs(o.HPAs), FastPeriod: mixFastPeriod.String()}
	if res.GatesOff, err = r.mixWindow(ctx, specs[mixGatesOff], "gates-off"); err != nil {
		return nil, err
	}
	if res.GatesOn, err = r.mixWindow(ctx, specs[mixGatesOn], "gates-on"); err != nil {
		return nil, err
	}
	patch := []byte(fmt.Sprintf(`{"spec":{"syncPeriodSeconds":%d}}`, int(mixFastPeriod/time.Second)))
	if err := r.forEachHPA(ctx, func(ctx context.Context, i int) error {
		if !fastHPA(i) {
			return nil
		}
		if _, err := hpas.Patch(ctx, workloadName(i), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("setting the sync period of %s: %w", workloadName(i), err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if res.Mix, err = r.mixWindow(ctx, specs[mixGatesOn], "mix"); err != nil {
		return nil, err
	}
	return res, nil
}

// forEachHPA calls do for every HPA index, a few at a time.
func (r *runner) forEachHPA(ctx context.Context, do func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(createParallelism)
	for i := range r.opts.HPAs {
		g.Go(func() error { return do(ctx, i) })
	}
	return g.Wait()
}

// mixWindow runs spec on the extended HPAs: one full pass, one global
// period, then one steady window.
func (r *runner) mixWindow(ctx context.Context, spec controllerSpec, phase string) (Phase, error) {
	o := r.opts
	r.logger.Info("Measuring the sync period mix", "phase", phase)
	c, err := startController(ctx, spec, o.SyncPeriod, filepath.Join(r.dir, "mix-"+phase+".log"))
	if err != nil {
		return Phase{}, err
	}
	defer c.stop()
	if _, err := waitReconciles(ctx, c, float64(o.HPAs), 3*o.SyncPeriod+2*time.Minute); err != nil {
		return Phase{}, err
	}
	if err := sleep(ctx, o.SyncPeriod, c); err != nil {
		return Phase{}, err
	}
	d, err := r.window(ctx, c, o.Window)
	if err != nil {
		return Phase{}, err
	}
	return phaseOf(d.lessBaseline(r.base), o.SyncPeriod), nil
}
