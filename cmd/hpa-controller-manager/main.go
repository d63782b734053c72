// Command hpa-controller-manager runs kube-hpa's HorizontalPodAutoscaler
// controller and its admission webhook.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewCommand()))
}
