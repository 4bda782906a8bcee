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

package policies

import (
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// parseEnv parses rules as CRD validation does (the macros and the optional syntax of the
// Kubernetes CEL environment); it declares nothing, since rules are only parsed here.
var parseEnv = func() *cel.Env {
	env, err := cel.NewEnv(cel.OptionalTypes(), ext.TwoVarComprehensions(), ext.Lists(), ext.Strings(), ext.Sets(),
		cel.EnableMacroCallTracking())
	if err != nil {
		panic(err)
	}
	return env
}()

// readsFeatureGates reports whether a rule or its messageExpression reads featureGates.
func readsFeatureGates(r apiextensionsv1.ValidationRule) (bool, error) {
	for _, src := range []string{r.Rule, r.MessageExpression} {
		if src == "" {
			continue
		}
		a, iss := parseEnv.Parse(src)
		if iss.Err() != nil {
			return false, iss.Err()
		}
		found := false
		ast.PostOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
			if e.Kind() == ast.IdentKind && e.AsIdent() == "featureGates" {
				found = true
			}
		}))
		if found {
			return true, nil
		}
	}
	return false, nil
}

// policyRule returns a CRD rule in the form a policy evaluates on unstructured values: a
// property that CRD validation escapes (__namespace__, a__dash__b) is read by its key
// (x["namespace"], x[?"namespace"].hasValue() for has()). self and featureGates keep their names; the
// caller binds them.
func policyRule(rule string) (string, error) {
	a, iss := parseEnv.Parse(rule)
	if iss.Err() != nil {
		return "", iss.Err()
	}
	native := a.NativeRep()
	fac := ast.NewExprFactory()
	id := int64(1 << 40)
	next := func() int64 { id++; return id }
	changed := false
	// has(x.__namespace__) is a macro: its expansion is a test-only selection, and the
	// unparser prints the macro call recorded under the expansion's id. Both become
	// x[?"namespace"].hasValue().
	replaced := map[int64]ast.Expr{}
	var fix func(e ast.Expr)
	fix = func(e ast.Expr) {
		if e.Kind() != ast.SelectKind {
			return
		}
		sel := e.AsSelect()
		name, escaped := unescape(sel.FieldName())
		if !escaped {
			return
		}
		changed = true
		key := fac.NewLiteral(next(), types.String(name))
		operand := fac.CopyExpr(sel.Operand())
		if sel.IsTestOnly() {
			// x[?"namespace"].hasValue(): a member call, which the unparser never needs to
			// put in parentheses (it prints a macro call's replacement as it is).
			present := fac.NewMemberCall(next(), "hasValue", fac.NewCall(next(), operators.OptIndex, operand, key))
			replaced[e.ID()] = fac.CopyExpr(present)
			e.SetKindCase(present)
			return
		}
		e.SetKindCase(fac.NewCall(next(), operators.Index, operand, key))
	}
	ast.PostOrderVisit(native.Expr(), ast.NewExprVisitor(fix))
	// The macro calls keep their own copies of the expressions the unparser prints.
	for id, call := range native.SourceInfo().MacroCalls() {
		if _, ok := replaced[id]; !ok {
			ast.PostOrderVisit(call, ast.NewExprVisitor(fix))
		}
	}
	for id, e := range replaced {
		native.SourceInfo().SetMacroCall(id, e)
	}
	if !changed {
		return "(" + rule + ")", nil
	}
	out, err := cel.AstToString(a)
	if err != nil {
		return "", err
	}
	return "(" + out + ")", nil
}

// unescape undoes CRD validation's escaping of property names that are not CEL identifiers
// (k8s.io/apiserver/pkg/cel: __dash__, __dot__, __slash__, __underscores__, and reserved
// words as __word__).
func unescape(name string) (string, bool) {
	if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") && len(name) > 4 && celReserved[name[2:len(name)-2]] {
		return name[2 : len(name)-2], true
	}
	// The other escapes may occur anywhere in the name.
	out := name
	for _, r := range []struct{ from, to string }{{"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}} {
		out = strings.ReplaceAll(out, r.from, r.to)
	}
	if out == name {
		return name, false
	}
	return out, true
}
