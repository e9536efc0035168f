package secrets

import "os"

// DefaultWith is Default plus the rules of each rule file (RuleFileFormat):
// what cc-redact and cc-render mask with their --rules.
func DefaultWith(files ...string) (*Set, error) {
	if len(files) == 0 {
		return Default, nil
	}
	var extra []*Rule
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		rules, err := ParseRules(f, name)
		f.Close()
		if err != nil {
			return nil, err
		}
		extra = append(extra, rules...)
	}
	return Default.With(extra...)
}
