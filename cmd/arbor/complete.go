package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/arbor-fuzz/arbor/datasets"
	"github.com/arbor-fuzz/arbor/learn"
)

// completions teaches shell completion ('arbor completion bash|zsh|fish|
// powershell') arbor's names: bundled grammars wherever a GRAMMAR is
// taken (as the first argument or --grammar, with file names too),
// bundled subjects for --subject, and, once --model is given, the
// model's functions for --function.
func completions(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		completions(sub)
	}
	if fields := strings.Fields(cmd.Use); len(fields) > 1 && fields[1] == "GRAMMAR" && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return grammarNames(toComplete), cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveDefault // input files
		}
	}
	fl := cmd.LocalFlags()
	if fl.Lookup("grammar") != nil {
		cmd.RegisterFlagCompletionFunc("grammar", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return grammarNames(toComplete), cobra.ShellCompDirectiveDefault
		})
	}
	if fl.Lookup("subject") != nil {
		cmd.RegisterFlagCompletionFunc("subject", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			for _, s := range datasets.Subjects() {
				if strings.HasPrefix(s.Name, toComplete) {
					names = append(names, cobra.CompletionWithDesc(s.Name, s.Description))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if fl.Lookup("function") != nil && fl.Lookup("model") != nil {
		cmd.RegisterFlagCompletionFunc("function", func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			path, _ := cmd.Flags().GetString("model")
			if path == "" {
				return cobra.AppendActiveHelp(nil, "give --model first: its functions complete here"), cobra.ShellCompDirectiveNoFileComp
			}
			m, err := learn.LoadModel(path)
			if err != nil {
				return cobra.AppendActiveHelp(nil, err.Error()), cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, f := range m.Functions {
				if strings.HasPrefix(f.Name, toComplete) {
					names = append(names, f.Name)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// grammarNames are the bundled grammars that start with prefix, with
// their descriptions.
func grammarNames(prefix string) []cobra.Completion {
	var names []cobra.Completion
	for _, g := range datasets.Grammars() {
		if strings.HasPrefix(g.Name, prefix) {
			names = append(names, cobra.CompletionWithDesc(g.Name, g.Description))
		}
	}
	return names
}
