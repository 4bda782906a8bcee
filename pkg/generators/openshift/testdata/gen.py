# Writes the synthetic OpenShift-style folder in api/ (kept with it so it can be regenerated).
import copy, json, os, yaml

def crd(annot=None):
    spec_props = {
        "mode": {"type": "string", "enum": ["Fast", "Slow"], "description": "mode."},
        "items": {"type": "array", "maxItems": 1, "items": {"type": "string", "pattern": "^[a-z]+$"}},
        "name": {"type": "string", "maxLength": 10},
    }
    c = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.openshift.io", "annotations": dict(annot or {})},
        "spec": {"group": "example.openshift.io", "scope": "Cluster",
                 "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                   "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                                   "spec": {"type": "object", "properties": spec_props, "required": ["mode"],
                                            "x-kubernetes-validations": [{"rule": "self.mode != 'Slow' || self.name != ''", "message": "slow needs a name"}]},
                                   "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}}
    return c

def spec(c):
    return c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]

# Alpha: a field, an enum value, a looser maxItems, a rule.
def alpha(c):
    s = spec(c)
    s["properties"]["turbo"] = {"type": "object", "properties": {"level": {"type": "integer", "minimum": 1, "maximum": 5}}}
    s["properties"]["mode"]["enum"].append("Turbo")
    s["properties"]["items"]["maxItems"] = 3
    s["x-kubernetes-validations"].append({"rule": "self.mode != 'Turbo' || has(self.turbo)", "message": "turbo mode needs turbo"})

# Beta: a required field, a pattern, a tighter maxLength, a removed rule.
def beta(c):
    s = spec(c)
    s["properties"]["owner"] = {"type": "string", "pattern": "^[a-z]+$"}
    s["required"] = ["mode", "owner"]
    s["properties"]["name"]["maxLength"] = 5
    s["x-kubernetes-validations"] = [r for r in s["x-kubernetes-validations"] if r["message"] != "slow needs a name"]

# Alpha+Beta: both, and a field only the combination has.
def alphabeta(c):
    alpha(c); beta(c)
    spec(c)["properties"]["turbo"]["properties"]["owner"] = {"type": "string"}
    spec(c)["properties"]["both"] = {"type": "string", "enum": ["Yes", "No"]}

def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        yaml.safe_dump(obj, f, sort_keys=True)

root = "api/example/v1"
d = root + "/zz_generated.featuregated-crd-manifests/widgets.example.openshift.io/"
for name, fn in [("AAA_ungated", None), ("Alpha", alpha), ("Beta", beta), ("Alpha+Beta", alphabeta)]:
    c = crd({"feature-gate.release.openshift.io/" + ("" if fn is None else name): "true"})
    if fn: fn(c)
    write(d + name + ".yaml", c)
write(root + "/zz_generated.featuregated-crd-manifests.yaml", {"widgets.example.openshift.io": {
    "CRDName": "widgets.example.openshift.io", "FeatureGates": ["Alpha", "Alpha+Beta", "Beta"], "TopLevelFeatureGates": [], "Version": "v1"}})
# Feature sets: Default enables Beta, TechPreviewNoUpgrade both.
sets = {"Default": (beta,), "TechPreviewNoUpgrade": (alpha, beta), "DevPreviewNoUpgrade": (alpha, beta), "OKD": (beta,)}
enabled = {"Default": ["Beta"], "TechPreviewNoUpgrade": ["Alpha", "Beta"], "DevPreviewNoUpgrade": ["Alpha", "Beta"], "OKD": ["Beta"]}
for fs, fns in sets.items():
    c = crd({"include.release.openshift.io/self-managed-high-availability": "true", "release.openshift.io/feature-set": fs})
    if fns == (alpha, beta): alphabeta(c)
    else:
        for fn in fns: fn(c)
    write(root + "/zz_generated.crd-manifests/0000_10_widgets-%s.crd.yaml" % fs, c)
    all_gates = ["Alpha", "Beta", "Other"]
    fg = {"apiVersion": "config.openshift.io/v1", "kind": "FeatureGate",
          "metadata": {"name": "cluster", "annotations": {"release.openshift.io/feature-set": fs, "release.openshift.io/major-version": "4,5"}},
          "spec": {}, "status": {"featureGates": [{"version": "", "enabled": [{"name": g} for g in enabled[fs]],
                                                   "disabled": [{"name": g} for g in all_gates if g not in enabled[fs]]}]}}
    os.makedirs("api/payload-manifests/featuregates", exist_ok=True)
    with open("api/payload-manifests/featuregates/featureGate-4-5-SelfManagedHA-%s.yaml" % fs, "w") as f:
        json.dump(fg, f, indent=4, sort_keys=True)
