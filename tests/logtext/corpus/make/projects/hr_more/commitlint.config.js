module.exports = {
  rules: {
    "type-enum": [2, "always", ["feat", "fix", "docs", "chore", "refactor", "test"]],
    "type-empty": [2, "never"],
    "subject-empty": [2, "never"],
    "header-max-length": [2, "always", 72],
  },
};
