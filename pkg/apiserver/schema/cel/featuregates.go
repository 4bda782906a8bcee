/*
Copyright 2026 The Kubernetes Authors.

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

package cel

import (
	"regexp"
	"sort"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// FeatureGatesVarName is the variable that x-kubernetes-validations rules and
// messageExpressions of a CRD with spec.customFeatureGates read the gates from:
// featureGates.<GateName> is the gate's enabled state, a bool.
const FeatureGatesVarName = "featureGates"

// featureGatesTypeName is the CEL type name of the featureGates object. Rules cannot name it.
const featureGatesTypeName = "kubernetes.customFeatureGates"

// FeatureGatesEnvSet returns base extended with the featureGates variable: an object with
// one bool field per gate, named like the gate, holding its state. states maps each
// declared gate to its enabled state (featuregates.States computes it by KEP-2608's rules).
//
// Each featureGates.<Name> is declared as a CEL constant (a qualified identifier), so its
// value is part of every program compiled in the returned environment. Programs are
// compiled once per CRD revision, so the values follow the revision; nothing is bound or
// looked up per request, and a gate costs no more than reading a bool field of self.
// featureGates itself is declared as an object whose fields are the gates, so the type
// checker rejects an undeclared gate (undefined field), and a validator rejects any use of
// featureGates other than featureGates.<Name>: there is no object to bind at run time.
//
// With no gates it returns base itself, so a CRD without gates compiles in upstream's
// environment.
func FeatureGatesEnvSet(base *environment.EnvSet, states map[string]bool) (*environment.EnvSet, error) {
	gates := make(map[string]bool, len(states))
	envOpts := make([]cel.EnvOption, 0, len(states)+3)
	for name, enabled := range states {
		if !celIdentifier.MatchString(name) || celReserved[name] {
			// CRD validation rejects such a name (gates are UpperCamelCase); rules cannot
			// read it.
			continue
		}
		gates[name] = true
		envOpts = append(envOpts, cel.Constant(FeatureGatesVarName+"."+name, cel.BoolType, types.Bool(enabled)))
	}
	if len(gates) == 0 {
		return base, nil
	}
	envOpts = append(envOpts,
		withFeatureGatesType(gates),
		cel.Variable(FeatureGatesVarName, types.NewObjectType(featureGatesTypeName)),
		cel.ASTValidators(featureGatesValidator{}),
	)
	return base.Extend(environment.VersionedOptions{
		// Present in every environment (new and stored expressions): whether a rule may
		// read featureGates depends only on the CRD declaring gates.
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        envOpts,
	})
}

// withFeatureGatesType makes the environment's type provider know the featureGates object
// type and its bool fields, so that the type checker rejects an undeclared gate as an
// undefined field. Everything else is the base provider's: unlike an
// apiservercel.DeclTypeProvider, this provider resolves no other type name, so the
// DeclTypes of self that upstream adds on top are checked against the same answers as in
// upstream's environment.
func withFeatureGatesType(gates map[string]bool) cel.EnvOption {
	return func(e *cel.Env) (*cel.Env, error) {
		base := e.CELTypeProvider()
		adapter, ok := base.(types.Adapter)
		if !ok {
			adapter = e.CELTypeAdapter()
		}
		return cel.CustomTypeProvider(&featureGatesProvider{Provider: base, Adapter: adapter, gates: gates})(e)
	}
}

// featureGatesProvider is a types.Provider (and types.Adapter, as the base one is) that adds
// the featureGates object type to its base.
type featureGatesProvider struct {
	types.Provider
	types.Adapter
	gates map[string]bool
}

func (p *featureGatesProvider) FindStructType(name string) (*types.Type, bool) {
	if name == featureGatesTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(featureGatesTypeName)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *featureGatesProvider) FindStructFieldNames(name string) ([]string, bool) {
	if name == featureGatesTypeName {
		names := make([]string, 0, len(p.gates))
		for n := range p.gates {
			names = append(names, n)
		}
		sort.Strings(names)
		return names, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *featureGatesProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if name == featureGatesTypeName {
		if p.gates[field] {
			return &types.FieldType{Type: types.BoolType}, true
		}
		return nil, false
	}
	return p.Provider.FindStructFieldType(name, field)
}

// celIdentifier matches the names CEL can select as a field.
var celIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// celReserved are CEL's reserved words and literals, which cannot be selected as a field.
var celReserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true, "for": true, "function": true, "if": true,
	"import": true, "let": true, "loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true,
	"while": true, "in": true, "true": true, "false": true, "null": true,
}

// featureGatesValidator reports every reference to featureGates that the type checker did
// not resolve to a gate's constant: featureGates alone, or has(featureGates.<Name>).
type featureGatesValidator struct{}

func (featureGatesValidator) Name() string { return "k8s.customFeatureGates" }

func (featureGatesValidator) Validate(_ *cel.Env, _ cel.ValidatorConfig, a *ast.AST, iss *cel.Issues) {
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.IdentKind && e.AsIdent() == FeatureGatesVarName {
			iss.ReportErrorAtID(e.ID(), "%s may only be read as %s.<GateName>, one gate at a time", FeatureGatesVarName, FeatureGatesVarName)
		}
	}))
}

// ValidatorOption configures NewValidator.
type ValidatorOption func(*validatorOptions)

type validatorOptions struct {
	baseEnvSet *environment.EnvSet
}

// WithBaseEnvSet compiles the validator's rules in envSet (for example one returned by
// FeatureGatesEnvSet) instead of upstream's base environment. A nil envSet is ignored.
func WithBaseEnvSet(envSet *environment.EnvSet) ValidatorOption {
	return func(o *validatorOptions) {
		if envSet != nil {
			o.baseEnvSet = envSet
		}
	}
}

// validatorBaseEnvSet is the base environment of a validator: upstream's, unless an option
// says otherwise.
func validatorBaseEnvSet(opts []ValidatorOption) *environment.EnvSet {
	o := validatorOptions{}
	for _, opt := range opts {
		opt(&o)
	}
	if o.baseEnvSet == nil {
		return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	}
	return o.baseEnvSet
}

// FeatureGatesUsedBy returns the gate names that expression reads as featureGates.<Name>.
// all is true when it uses featureGates other than by selecting a field (then it may read
// any gate). It only parses expression; one that does not parse uses nothing (CRD
// validation reports it).
func FeatureGatesUsedBy(expression string) (names []string, all bool) {
	if expression == "" {
		return nil, false
	}
	env, err := parserEnv()
	if err != nil {
		return nil, false
	}
	parsed, iss := env.Parse(expression)
	if iss.Err() != nil {
		return nil, false
	}
	selected := map[int64]bool{}
	visitor := ast.NewExprVisitor(func(e ast.Expr) {
		switch e.Kind() {
		case ast.SelectKind:
			sel := e.AsSelect()
			if op := sel.Operand(); op.Kind() == ast.IdentKind && op.AsIdent() == FeatureGatesVarName {
				names = append(names, sel.FieldName())
				selected[op.ID()] = true
			}
		}
	})
	ast.PostOrderVisit(parsed.NativeRep().Expr(), visitor)
	ast.PostOrderVisit(parsed.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.IdentKind && e.AsIdent() == FeatureGatesVarName && !selected[e.ID()] {
			all = true
		}
	}))
	return names, all
}

// parserEnv parses expressions with CEL's standard macros, as every rule environment has.
var parserEnv = sync.OnceValues(func() (*cel.Env, error) { return cel.NewEnv() })
