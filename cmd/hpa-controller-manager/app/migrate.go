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

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/migrate"
)

// migrateOptions are the flags of the migrate subcommand.
type migrateOptions struct {
	kubeconfig string
	namespace  string
	to         string
	dryRun     bool
}

const (
	toKubeHPA = "kube-hpa"
	toNative  = "native"
)

// newMigrateCommand returns "hpa-controller-manager migrate NAME": the
// handover of one target between a native HPA and a kube-hpa HPA.
func newMigrateCommand() *cobra.Command {
	o := migrateOptions{namespace: "default", to: toKubeHPA}
	cmd := &cobra.Command{
		Use:   "migrate NAME",
		Short: "Replace a native HPA by a kube-hpa HPA of the same spec and behavior, or back",
		Long: `migrate creates the new HPA (same name, spec, behavior, labels and annotations), then deletes the
old one. The target's replicas are not written: the new HPA starts from the current count. Between
the two writes the target has both; kube-hpa's ownership guard holds its own HPA for that pass at
most. If the delete fails, the new HPA is deleted again. See docs/migration.md.`,
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig (the in-cluster configuration when empty).")
	fs.StringVarP(&o.namespace, "namespace", "n", o.namespace, "Namespace of the HPA.")
	fs.StringVar(&o.to, "to", o.to, "The kind to migrate to: kube-hpa (from a native HPA) or native (from a kube-hpa HPA).")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Print the HPA that would be created and change nothing.")
	return cmd
}

func (o migrateOptions) run(cmd *cobra.Command, name string) error {
	restConfig, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	extended, err := hpaclient.New(restConfig)
	if err != nil {
		return err
	}
	opts := migrate.Options{Native: kube.AutoscalingV2().HorizontalPodAutoscalers(o.namespace), Extended: extended,
		Namespace: o.namespace, Name: name, DryRun: o.dryRun}
	var out any
	switch o.to {
	case toKubeHPA:
		out, err = migrate.ToExtended(cmd.Context(), opts)
	case toNative:
		out, err = migrate.ToNative(cmd.Context(), opts)
	default:
		return fmt.Errorf("--to must be %s or %s, got %q", toKubeHPA, toNative, o.to)
	}
	if err != nil {
		return err
	}
	text, err := yaml.Marshal(out)
	if err != nil {
		return err
	}
	verb := "created"
	if o.dryRun {
		verb = "would create (dry run)"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "# %s:\n%s", verb, text)
	return nil
}
