"""LTI 1.3: a platform's configuration, the OIDC login and launch, the platform's
tokens, the pages a launch lands on, and the roster read from Names and Roles.
"""
