"""The rules' validator (validate.py, run as a script) and the modules it reads the rules with;
the rules themselves are the YAML files beside them."""
