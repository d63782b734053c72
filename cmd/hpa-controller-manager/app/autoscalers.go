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
	"context"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	autoscalingclient "k8s.io/client-go/kubernetes/typed/autoscaling/v2"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// liveAutoscalers finds a target's autoscalers by listing both kinds of
// HPA in its namespace from the API server. An admission review is rare
// (a person creating or moving an HPA), and a cache could miss an HPA
// created a moment before: the list is exact and cheap enough.
type liveAutoscalers struct {
	native   autoscalingclient.HorizontalPodAutoscalersGetter
	extended *hpaclient.Client
}

func (l liveAutoscalers) On(ctx context.Context, namespace string, target autoscalingv2.CrossVersionObjectReference) ([]webhook.Autoscaler, error) {
	var out []webhook.Autoscaler
	natives, err := l.native.HorizontalPodAutoscalers(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing native HPAs: %w", err)
	}
	for _, hpa := range natives.Items {
		if webhook.SameTarget(hpa.Spec.ScaleTargetRef, target) {
			out = append(out, webhook.Autoscaler{Kind: webhook.NativeKind, Name: hpa.Name})
		}
	}
	extended, err := l.extended.List(ctx, namespace, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing kube-hpa HPAs: %w", err)
	}
	for _, hpa := range extended.Items {
		if webhook.SameTarget(hpa.Spec.ScaleTargetRef, target) {
			out = append(out, webhook.Autoscaler{Kind: v2.SchemeGroupVersion.String(), Name: hpa.Name})
		}
	}
	return out, nil
}
