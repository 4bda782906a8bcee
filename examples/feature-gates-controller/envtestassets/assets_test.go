// Package envtestassets_test checks the envtest assets of the fork (make envtest-assets)
// themselves: their kube-apiserver turns CRDFieldLevelVersioning on, and keeps it on when a
// test passes --feature-gates of its own, unless that flag names CRDFieldLevelVersioning.
package envtestassets_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set. These tests check the KEP-2608 fork's envtest assets: "+
			"run `make envtest-assets` at the root of the fork and set KUBEBUILDER_ASSETS to the path it prints, "+
			"or run `make test-controllers` there.")
		os.Exit(1)
	}
	log.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	os.Exit(m.Run())
}

func TestFeatureGateFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		// gates are the test's own --feature-gates values, one flag each.
		gates []string
		want  bool
	}{
		{name: "no flag of the test's own", want: true},
		{name: "another gate", gates: []string{"AllAlpha=false"}, want: true},
		{name: "another gate with the kube: prefix", gates: []string{"kube:AllAlpha=false"}, want: true},
		{name: "two flags", gates: []string{"AllAlpha=false", "AllBeta=true"}, want: true},
		{name: "the test turns the feature off", gates: []string{"CRDFieldLevelVersioning=false"}, want: false},
		{name: "the test turns the feature off among other gates", gates: []string{"kube:AllAlpha=false,kube:CRDFieldLevelVersioning=false"}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &envtest.Environment{}
			if len(tc.gates) > 0 {
				env.ControlPlane.GetAPIServer().Configure().Append("feature-gates", tc.gates...)
			}
			cfg, err := env.Start()
			if err != nil {
				t.Fatalf("envtest with --feature-gates %q: %v", tc.gates, err)
			}
			t.Cleanup(func() {
				if err := env.Stop(); err != nil {
					t.Errorf("stopping envtest: %v", err)
				}
			})
			ctx := context.Background()

			// The server's own account of the gate.
			kube, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			metrics, err := kube.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := featureEnabled(string(metrics), "CRDFieldLevelVersioning"); err != nil {
				t.Fatal(err)
			} else if got != tc.want {
				t.Errorf("kubernetes_feature_enabled for CRDFieldLevelVersioning: got %v; want %v", got, tc.want)
			}

			// And what it does: a new CRD keeps its gates only while the feature is on.
			crds, err := clientset.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			created, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gatedCRD(), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if kept := created.Spec.CustomFeatureGates != nil; kept != tc.want {
				t.Errorf("spec.customFeatureGates kept on CRD create: got %v; want %v", kept, tc.want)
			}
		})
	}
}

// featureEnabled reads kubernetes_feature_enabled{name="<gate>"} from metrics text.
func featureEnabled(metrics, gate string) (bool, error) {
	s := bufio.NewScanner(strings.NewReader(metrics))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := s.Text()
		if !strings.HasPrefix(line, "kubernetes_feature_enabled{") || !strings.Contains(line, `name="`+gate+`"`) {
			continue
		}
		fields := strings.Fields(line)
		switch fields[len(fields)-1] {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
		return false, fmt.Errorf("unexpected metric line %q", line)
	}
	if err := s.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("no kubernetes_feature_enabled metric for %s in /metrics", gate)
}

func gatedCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.assets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "assets.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Scope: apiextensionsv1.NamespaceScoped,
			CustomFeatureGates: &apiextensionsv1.CustomResourceDefinitionFeatureGates{
				FeatureGates: []apiextensionsv1.CustomResourceDefinitionFeatureGate{{
					Name:       "ThingSize",
					PreRelease: apiextensionsv1.CustomFeatureGateAlpha,
					FieldPaths: []string{".spec.size"},
				}},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer"},
						}},
					},
				}},
			}},
		},
	}
}
