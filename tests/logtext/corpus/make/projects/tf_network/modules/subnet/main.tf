variable "cidrs" {
  type = list(string)
}

variable "name" {
  type = string
}

output "ids" {
  value = [for i, c in var.cidrs : "${var.name}-${i}-${replace(c, "/", "_")}"]
}
