//! Result reports in the three formats: human, llm (paste-back) and json.
