package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ccpipe/ccpipe/lib/numfmt"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// Budgets are spend limits in USD (0: no limit) and the fraction of a
// limit at which a figure warns. They are the "budgets:" section of a
// YAML file: a cc-hook rule file, or a file of their own.
type Budgets struct {
	Day   float64 `yaml:"day" json:"day"`
	Week  float64 `yaml:"week" json:"week"`
	Month float64 `yaml:"month" json:"month"`
	Block float64 `yaml:"block" json:"block"`
	// Warn is the fraction of a limit past which its state is warn
	// (DefaultWarn when the file does not say).
	Warn float64 `yaml:"warn" json:"warn"`
}

// DefaultWarn is the warn fraction a budgets section that names none has.
const DefaultWarn = 0.8

// BudgetPeriods name the periods a budget limits, in the order states
// are listed.
var BudgetPeriods = []string{"day", "week", "month", "block"}

var budgetKeys = append(slices.Clone(BudgetPeriods), "warn")

// ParseBudgets reads the "budgets:" section of a YAML document; found is
// false when it has none. Other top-level keys are left to their readers;
// an unknown key inside the section, a negative limit or a warn fraction
// outside (0, 1] is an error.
func ParseBudgets(data []byte) (b Budgets, found bool, err error) {
	var doc struct {
		Budgets yaml.Node `yaml:"budgets"`
	}
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return b, false, fmt.Errorf("invalid YAML: %w", err)
	}
	n := &doc.Budgets
	if n.Kind == 0 {
		return b, false, nil
	}
	if n.Kind != yaml.MappingNode {
		return b, true, fmt.Errorf("line %d: budgets: want a mapping of day, week, month, block, warn", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(budgetKeys, k.Value) {
			return b, true, fmt.Errorf("line %d: unknown budget %q (want one of %s)", k.Line, k.Value, strings.Join(budgetKeys, ", "))
		}
	}
	if err := n.Decode(&b); err != nil {
		return b, true, fmt.Errorf("line %d: budgets: %s", n.Line, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for i, v := range []float64{b.Day, b.Week, b.Month, b.Block} {
		if v < 0 {
			return b, true, fmt.Errorf("line %d: budgets: %s is negative", n.Line, BudgetPeriods[i])
		}
	}
	if b.Warn == 0 {
		b.Warn = DefaultWarn
	}
	if b.Warn < 0 || b.Warn > 1 {
		return b, true, fmt.Errorf("line %d: budgets: warn is a fraction of a limit, in (0, 1]: %v", n.Line, b.Warn)
	}
	return b, true, nil
}

// The states of a budget: under its warn fraction, past it, or reached.
const (
	BudgetOK   = "ok"
	BudgetWarn = "warn"
	BudgetOver = "over"
)

// BudgetState is one period's spend against its limit.
type BudgetState struct {
	Period string  `json:"period"`
	Spent  float64 `json:"spent_usd"`
	Limit  float64 `json:"limit_usd"`
	State  string  `json:"state"`
}

// String says it with the figures: "day $5.12 of $5.00".
func (s BudgetState) String() string {
	return fmt.Sprintf("%s %s of %s", s.Period, numfmt.Dollars(s.Spent), numfmt.Dollars(s.Limit))
}

// Limit is the limit of a period ("day", "week", "month", "block"); 0 for
// none.
func (b Budgets) Limit(period string) float64 {
	switch period {
	case "day":
		return b.Day
	case "week":
		return b.Week
	case "month":
		return b.Month
	case "block":
		return b.Block
	}
	return 0
}

// spent is the figure of sp a period's budget limits.
func spent(sp Spend, period string) float64 {
	switch period {
	case "day":
		return sp.Today
	case "week":
		return sp.Week
	case "month":
		return sp.Month
	case "block":
		return sp.Block
	}
	return 0
}

// Check is the state of every period with a limit: over once the spend
// reaches the limit, warn once it reaches Warn of it.
func (b Budgets) Check(sp Spend) []BudgetState {
	var out []BudgetState
	for _, p := range BudgetPeriods {
		limit := b.Limit(p)
		if limit <= 0 {
			continue
		}
		s := BudgetState{Period: p, Spent: spent(sp, p), Limit: limit, State: BudgetOK}
		switch {
		case s.Spent >= limit:
			s.State = BudgetOver
		case s.Spent >= b.Warn*limit:
			s.State = BudgetWarn
		}
		out = append(out, s)
	}
	return out
}

// Worst is the worst state of states: over, warn, else ok.
func Worst(states []BudgetState) string {
	w := BudgetOK
	for _, s := range states {
		if s.State == BudgetOver {
			return BudgetOver
		}
		if s.State == BudgetWarn {
			w = BudgetWarn
		}
	}
	return w
}

// maxBudgetsFile bounds a budgets file (a rule file's bound).
const maxBudgetsFile = 4 << 20

// ReadBudgets reads the budgets section of a YAML file (a cc-hook rule
// file, or a file of its own); a file without one is an error.
func ReadBudgets(path string) (Budgets, error) {
	data, err := regular.ReadFile(path, maxBudgetsFile)
	if err != nil {
		return Budgets{}, err
	}
	b, found, err := ParseBudgets(data)
	if err == nil && !found {
		err = errors.New(`no "budgets:" section (want day, week, month, block, warn under it)`)
	}
	if err != nil {
		return Budgets{}, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
