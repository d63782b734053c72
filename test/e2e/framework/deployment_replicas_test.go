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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// chartLikeDeployment is a Deployment shaped as the chart renders it: one
// container whose args name files of a Secret volume.
func chartLikeDeployment(mutate func(*corev1.PodSpec)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-hpa", Name: "kube-hpa"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: "kube-hpa",
			Containers: []corev1.Container{{
				Name: "hpa-controller-manager",
				Args: []string{
					"--leader-elect=true",
					"--tls-cert-file=/etc/kube-hpa/webhook/tls.crt",
					"--tls-private-key-file=/etc/kube-hpa/webhook/tls.key",
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "webhook-tls", MountPath: "/etc/kube-hpa/webhook"}},
			}},
			Volumes: []corev1.Volume{{Name: "webhook-tls", VolumeSource: corev1.VolumeSource{
				Secret: &corev1.SecretVolumeSource{SecretName: "kube-hpa-webhook-tls"},
			}}},
		}}},
	}
	if mutate != nil {
		mutate(&d.Spec.Template.Spec)
	}
	return d
}

func TestPodArgs(t *testing.T) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-hpa", Name: "kube-hpa-webhook-tls"},
		Data:       map[string][]byte{"tls.crt": []byte("CERT"), "tls.key": []byte("KEY")},
	}
	tests := []struct {
		name   string
		mutate func(*corev1.PodSpec)
		// wantArgs are the args with the local volume directory as VOL.
		wantArgs []string
		wantErr  string
	}{
		{
			name:     "the mount path of a Secret volume becomes the local copy of the Secret",
			wantArgs: []string{"--leader-elect=true", "--tls-cert-file=VOL/tls.crt", "--tls-private-key-file=VOL/tls.key"},
		},
		{
			name:     "a mount path with a trailing slash",
			mutate:   func(s *corev1.PodSpec) { s.Containers[0].VolumeMounts[0].MountPath = "/etc/kube-hpa/webhook/" },
			wantArgs: []string{"--leader-elect=true", "--tls-cert-file=VOL/tls.crt", "--tls-private-key-file=VOL/tls.key"},
		},
		{
			name:    "a command would not run hpa-controller-manager's entrypoint",
			mutate:  func(s *corev1.PodSpec) { s.Containers[0].Command = []string{"/bin/sh"} },
			wantErr: "a command replaces the image's entrypoint",
		},
		{
			name:    "a second container cannot be told apart",
			mutate:  func(s *corev1.PodSpec) { s.Containers = append(s.Containers, corev1.Container{Name: "sidecar"}) },
			wantErr: "has 2 containers",
		},
		{
			name: "a volume that is no Secret is refused",
			mutate: func(s *corev1.PodSpec) {
				s.Volumes[0].Secret = nil
				s.Volumes[0].EmptyDir = &corev1.EmptyDirVolumeSource{}
			},
			wantErr: "is not a Secret",
		},
		{
			name:    "a Secret that does not exist",
			mutate:  func(s *corev1.PodSpec) { s.Volumes[0].Secret.SecretName = "missing" },
			wantErr: "the Secret of a volume",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &DeploymentReplicas{kube: fake.NewClientset(secret.DeepCopy())}
			podDir := t.TempDir()
			args, err := r.podArgs(context.Background(), chartLikeDeployment(tc.mutate), podDir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want an error containing %q", args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			vol := filepath.Join(podDir, "volumes", "webhook-tls")
			want := make([]string, len(tc.wantArgs))
			for i, a := range tc.wantArgs {
				want[i] = strings.ReplaceAll(a, "VOL", vol)
			}
			if !slices.Equal(args, want) {
				t.Errorf("args %q, want %q", args, want)
			}
			for file, content := range map[string]string{"tls.crt": "CERT", "tls.key": "KEY"} {
				got, err := os.ReadFile(filepath.Join(vol, file))
				if err != nil || string(got) != content {
					t.Errorf("%s: %q, %v; want %q", file, got, err, content)
				}
			}
		})
	}
}
