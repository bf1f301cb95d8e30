// placeholder until the facility models land
