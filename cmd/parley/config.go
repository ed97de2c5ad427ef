package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v3"
)

// envPrefix starts the name of every environment variable Parley reads:
// flag --rate-limit-pro is PARLEY_RATE_LIMIT_PRO.
const envPrefix = "PARLEY"

// everyFlag maps each flag of fs to the environment variable of its own
// name, for commands whose every flag may come from the environment.
func everyFlag(fs *flag.FlagSet) map[string]string {
	names := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = f.Name })
	return names
}

// parseFlags parses the command line of fs, then sets each flag of env
// (flag name -> the name its environment variable is spelled from, so
// --token can read PARLEY_ADMIN_TOKEN) that the command line left unset
// from its PARLEY_* variable, through ff. A flag wins over the environment.
// A malformed value, on the command line or in the environment, is an
// error naming the variable and what it accepts; nothing falls back to a
// default silently.
func parseFlags(fs *flag.FlagSet, args []string, env map[string]string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	fromEnv := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fromEnv.SetOutput(io.Discard)
	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil {
			panic("parseFlags: no flag --" + name)
		}
		if !given[name] {
			fromEnv.Var(f.Value, env[name], f.Usage)
		}
	}
	err := ff.Parse(fromEnv, nil, ff.WithEnvVarPrefix(envPrefix))
	if err == nil {
		return nil
	}
	var bad error = err
	fromEnv.VisitAll(func(f *flag.Flag) {
		key := envName(f.Name)
		if strings.Contains(err.Error(), strconv.Quote(key)) {
			bad = fmt.Errorf("%w: %s=%q is not valid: %s accepts %s", errConfig, key, os.Getenv(key), key, accepts(f))
		}
	})
	return bad
}

// errConfig marks a malformed environment variable.
var errConfig = errors.New("bad configuration")

// envName is the environment variable of a flag name.
func envName(flagName string) string {
	return envPrefix + "_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(flagName))
}

// accepts says which values a flag takes, from its type.
func accepts(f *flag.Flag) string {
	kind, _ := flag.UnquoteUsage(f)
	switch kind {
	case "":
		return "true or false (also 1 or 0)"
	case "duration":
		return "a duration with its unit, such as 30s, 2m or 1h30m"
	case "int":
		return "a whole number"
	case "uint":
		return "a whole number, 0 or more"
	case "float":
		return "a number"
	}
	return "a " + kind
}
