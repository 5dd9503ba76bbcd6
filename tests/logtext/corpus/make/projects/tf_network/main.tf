terraform {
  required_version = ">= 1.5"
}

variable "environment" {
  type    = string
  default = "staging"
}

variable "cidr_block" {
  type    = string
  default = "10.20.0.0/16"
}

locals {
  name    = "net-${var.environment}"
  subnets = [for i in range(3) : cidrsubnet(var.cidr_block, 8, i)]
}

module "subnet" {
  source = "./modules/subnet"
  cidrs  = local.subnets
  name   = local.name
}

output "subnets" {
  value = module.subnet.ids
}
