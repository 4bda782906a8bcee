// Command feature-gates-controller runs the example WebApp controller (package webapp)
// against the cluster of the current kubeconfig. The cluster's kube-apiserver must run with
// --feature-gates=CRDFieldLevelVersioning=true and serve config/webapp-crd.yaml.
package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"example.com/feature-gates-controller/webapp"
)

func main() {
	ctrl.SetLogger(zap.New())
	if err := run(); err != nil {
		ctrl.Log.WithName("feature-gates-controller").Error(err, "Exiting")
		os.Exit(1)
	}
}

func run() error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, webapp.ManagerOptions())
	if err != nil {
		return err
	}
	if err := webapp.Setup(mgr); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
