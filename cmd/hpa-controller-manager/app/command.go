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

// Package app is hpa-controller-manager's command: options, then a
// validated config, then Run.
package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/options"
)

// NewCommand returns the hpa-controller-manager command.
func NewCommand() *cobra.Command {
	opts, err := options.NewOptions()
	if err != nil {
		// Only a programming error (a gate registered twice) gets here.
		panic(err)
	}
	fss := opts.Flags()
	requested := addVersionFlag(fss.FlagSet("global"))
	cmd := &cobra.Command{
		Use:   "hpa-controller-manager",
		Short: "kube-hpa's HorizontalPodAutoscaler controller: upstream's, with fallback, per-HPA sync period, source routing and a decision trace",
		Long: `hpa-controller-manager runs the HorizontalPodAutoscaler controller of kube-controller-manager v1.37
(scale to and from zero, KEP-2021, as v1.37 has it), extended behind feature gates with fallback
replicas for failing External metrics (KEP-5679, and its fallback strategy), a per-HPA sync period
(KEP-6003), per-metric source routing (KEP-6382) and a decision trace in the status. It reconciles
the HorizontalPodAutoscalers of autoscaling.kube-hpa.io/v2 and, with --manage-native-hpas, the
native autoscaling/v2 ones. --sharded splits the HPAs between replicas (KEP-5866).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
			}
			if printed, err := printVersion(cmd.OutOrStdout(), *requested, version.Get()); printed || err != nil {
				return err
			}
			if err := opts.ApplyLogging(); err != nil {
				return err
			}
			cfg, err := opts.Config()
			if err != nil {
				return err
			}
			// SIGTERM ends the context: the lease is released and the
			// workers stop before the process exits.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return Run(ctx, cfg)
		},
	}
	cmd.AddCommand(newMigrateCommand())
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, _ := term.TerminalSize(os.Stdout)
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	return cmd
}
