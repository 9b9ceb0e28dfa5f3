"""nova_lite: a compute control plane in the style of OpenStack Nova."""
